#include "response_mapper.h"

#include "answer_splice.h"
#include "usage.h"

#include <modelgw/provider/json.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <string>
#include <utility>

namespace mgw::openai {

using namespace mgw::provider;

// A 2xx the vendor should never send. Retryable: the same call usually gets a
// proper answer. The message says what was wrong, never the bytes.
void bad_success(const mgw_response_sink& out, int32_t status, std::string_view what) {
  emit_error(&out, provider_failed(
                       "upstream provider returned HTTP " + std::to_string(status) + " " + std::string(what),
                       /*retryable=*/true));
}

void map_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t status,
                  const mgw_header* headers, std::size_t header_count, std::string_view body,
                  const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    emit_error(&out, map_http_error(ctx, status, headers, header_count, body));
    return;
  }

  if (auto spliced = splice_answer(body, json_quoted(view(call.alias)))) {
    if (out.callback_usage != nullptr) out.callback_usage(out.host_data, &spliced->usage);
    if (out.callback_body != nullptr) out.callback_body(out.host_data, str(spliced->body));
    return;
  }
  // Anything out of the ordinary: parsed, checked and mapped member by member.
  Json doc = parse_bounded(body);
  if (doc.is_discarded()) {
    return bad_success(out, status, "with a body that is not JSON");
  }
  if (!doc.is_object()) {
    return bad_success(out, status, "with a JSON body that is not an object");
  }
  if (auto err = doc.find("error"); err != doc.end() && !err->is_null()) {
    std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
    emit_error(&out, provider_failed(with_vendor_message(std::move(prefix), doc, ctx.api_key), true));
    return;
  }
  auto choices = doc.find("choices");
  if (choices == doc.end() || !choices->is_array()) {
    return bad_success(out, status, "without a \"choices\" array");
  }

  doc["model"] = view(call.alias);
  doc.erase("request_id");  // the host writes the gateway's own

  mgw_usage usage{};
  if (auto u = doc.find("usage"); u != doc.end() && u->is_object()) {
    usage = read_usage(*u);
  } else {
    // Spec §2.2: usage is present in every response, so the estimate goes in
    // too, with the host's count of the prompt.
    usage = estimated_usage(host_prompt_tokens(call), choices_generated_bytes(doc, "message"));
    doc["usage"] = usage_json(usage);
  }
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  if (out.callback_body != nullptr) {
    out.callback_body(out.host_data, str(dump(doc)));
  }
}

}  // namespace mgw::openai
