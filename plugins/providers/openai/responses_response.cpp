#include "responses_response.h"

#include "answer_splice.h"
#include "response_mapper.h"
#include "usage.h"

#include <modelgw/provider/json.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/provider/secret_mask.hpp>
#include <modelgw/sdk.hpp>

#include <string>
#include <utility>

namespace mgw::openai {

using namespace mgw::provider;

namespace {

// How much of a failed response's own message is passed on.
constexpr std::size_t kFailureMessageLimit = 160;

}  // namespace

MappedError failed_response_error(std::string prefix, const Json& response, std::string_view api_key,
                                  bool retryable) {
  if (const Json* err = member(response, "error"); err != nullptr) {
    if (const std::string_view message = string_member(*err, "message"); !message.empty()) {
      prefix += ": ";
      prefix += vendor_text(message, api_key, kFailureMessageLimit);
    }
  }
  return provider_failed(std::move(prefix), retryable);
}

void map_responses_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t status,
                            const mgw_header* headers, std::size_t header_count, std::string_view body,
                            const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    emit_error(&out, map_http_error(ctx, status, headers, header_count, body));
    return;
  }
  if (auto spliced = splice_answer(body, json_quoted(view(call.alias)), AnswerShape::response)) {
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
  if (string_member(doc, "object") != "response") {
    if (member(doc, "error") != nullptr) {  // {"error": …} instead of a response
      std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
      emit_error(&out, provider_failed(with_vendor_message(std::move(prefix), doc, ctx.api_key), true));
      return;
    }
    return bad_success(out, status, "without \"object\": \"response\"");
  }
  if (string_member(doc, "status") == "failed") {
    emit_error(&out, failed_response_error("upstream provider reported the response failed", doc, ctx.api_key,
                                           /*retryable=*/true));
    return;
  }

  doc["model"] = view(call.alias);
  doc.erase("request_id");  // the host writes the gateway's own

  mgw_usage usage{};
  if (const Json* u = member(doc, "usage"); u != nullptr && u->is_object()) {
    usage = read_responses_usage(*u);
  } else {
    usage = estimated_usage(host_prompt_tokens(call), output_generated_bytes(doc));
    doc["usage"] = responses_usage_json(usage);
  }
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  if (out.callback_body != nullptr) {
    out.callback_body(out.host_data, str(dump(doc)));
  }
}

}  // namespace mgw::openai
