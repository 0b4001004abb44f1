#include "request.h"

#include "buf.h"
#include "errors.h"
#include "json_scan.h"

#include <string.h>

static mgw_str text_of(const char* s) {
  mgw_str v;
  v.ptr = s;
  v.len = strlen(s);
  return v;
}

/* What happens to one member of the client's body. The model is the
 * catalog's; request_id is the gateway's trace handle, not the vendor's
 * business; stream and stream_options follow call->stream, which decides how
 * the host reads the answer. */
static int replaced(mgw_str name) {
  return js_key_is(name, "model") || js_key_is(name, "request_id") || js_key_is(name, "stream") ||
         js_key_is(name, "stream_options");
}

static void copy_member(echo_buf* body, mgw_str name, mgw_str value) {
  buf_append(body, ",\"", 2);
  buf_append(body, name.ptr, name.len);
  buf_append(body, "\":", 2);
  buf_append(body, value.ptr, value.len);
}

/* The vendor body, built by copying the client's members as written: with the
 * host's index of them when it has one (ABI 1.1), else by walking the body. */
static int build_body(const mgw_call_context* call, mgw_str request_json, echo_buf* body) {
  size_t i;
  buf_append_cstr(body, "{\"model\":");
  buf_append_json_string(body, call->upstream_model.ptr, call->upstream_model.len);
  if (MGW_HAS_FIELD(call, mgw_call_context, member_count) && call->members != NULL) {
    for (i = 0; i < call->member_count; ++i) {
      if (!replaced(call->members[i].name)) {
        copy_member(body, call->members[i].name, call->members[i].value);
      }
    }
  } else {
    js_object it;
    mgw_str name;
    mgw_str value;
    int step;
    if (!js_is_document(request_json) || !js_object_begin(&it, request_json)) {
      return 0;
    }
    while ((step = js_object_next(&it, &name, &value)) == 1) {
      if (!replaced(name)) {
        copy_member(body, name, value);
      }
    }
    if (step != 0) {
      return 0;
    }
  }
  if (call->stream) {
    /* Without usage in the stream the gateway could only estimate the tokens. */
    buf_append_cstr(body, ",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
  }
  buf_append(body, "}", 1);
  return 1;
}

mgw_status echo_build_request(const char* authorization, const mgw_call_context* call, mgw_str request_json,
                              const mgw_request_sink* out, const mgw_response_sink* error) {
  echo_buf body;
  mgw_str built;
  buf_init(&body);
  if (!build_body(call, request_json, &body)) {
    buf_free(&body);
    echo_fail(error, 400, MGW_ERR_INVALID_PARAMETER, "the request body is not a JSON object", NULL, 0, -1);
    return MGW_INVALID_ARGUMENT;
  }
  if (body.failed) {
    buf_free(&body);
    echo_fail(error, 500, MGW_ERR_INTERNAL, ECHO_OUT_OF_MEMORY, NULL, 1, -1);
    return MGW_INTERNAL;
  }
  built.ptr = body.data;
  built.len = body.len;
  out->callback_method(out->host_data, text_of("POST"));
  out->callback_path(out->host_data, text_of("/chat/completions"));
  out->callback_header(out->host_data, text_of("Authorization"), text_of(authorization));
  out->callback_header(out->host_data, text_of("Content-Type"), text_of("application/json"));
  out->callback_header(out->host_data, text_of("Accept"),
                       text_of(call->stream ? "text/event-stream" : "application/json"));
  out->callback_body(out->host_data, built);
  buf_free(&body);
  return MGW_OK;
}
