#include "response.h"

#include "buf.h"
#include "envelope.h"
#include "errors.h"
#include "json_scan.h"
#include "usage.h"

void echo_parse_response(const mgw_call_context* call, int32_t http_status, const mgw_header* headers,
                         size_t header_count, mgw_str body, const mgw_response_sink* out) {
  echo_buf client;
  mgw_str vendor_usage;
  mgw_usage usage;
  mgw_str built;
  int choices;
  if (http_status < 200 || http_status > 299) {
    echo_map_http_error(call, http_status, headers, header_count, body, out);
    return;
  }
  /* A 2xx the vendor should never send. Retryable: the same call usually gets
   * a proper answer. The message says what was wrong, never the bytes. */
  buf_init(&client);
  if (!echo_rewrite_object(body, call->alias, 1, &client, &vendor_usage, &choices)) {
    echo_fail_provider(out, "upstream provider answered with a body that is not a JSON object", 1);
  } else if (echo_has_error(body)) {
    echo_fail_provider(out, "upstream provider answered with an error in a successful response", 1);
  } else if (choices == ECHO_CHOICES_NONE) {
    echo_fail_provider(out, "upstream provider answered without a \"choices\" array", 1);
  } else {
    if (vendor_usage.len > 0) {
      usage = echo_read_usage(vendor_usage, call->prompt_tokens);
    } else {
      mgw_str choice_list = {NULL, 0};
      js_find(body, "choices", &choice_list);
      usage = echo_estimate_usage(call->prompt_tokens, echo_generated_bytes(choice_list, "message"));
      /* Every chat.completion carries usage, so the stand-in goes in too. */
      buf_append_cstr(&client, ",\"usage\":");
      echo_append_usage_json(&client, &usage);
    }
    buf_append(&client, "}", 1);
    if (client.failed) {
      echo_fail(out, 500, MGW_ERR_INTERNAL, ECHO_OUT_OF_MEMORY, NULL, 1, -1);
    } else {
      built.ptr = client.data;
      built.len = client.len;
      out->callback_usage(out->host_data, &usage);
      out->callback_body(out->host_data, built);
    }
  }
  buf_free(&client);
}
