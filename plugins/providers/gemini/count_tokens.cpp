#include "count_tokens.h"

#include "embeddings_request.h"
#include "generation_config.h"
#include "invalid_request.h"
#include "message_translator.h"
#include "vendor_error.h"

#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

#include <utility>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

void bad_count(const mgw_response_sink& out, int32_t status, std::string_view what) {
  emit_error(&out, provider_failed(
                       "upstream provider returned HTTP " + std::to_string(status) + " " + std::string(what),
                       /*retryable=*/true));
}

}  // namespace

std::optional<std::string> count_tokens_body(const mgw_call_context& call, std::string_view client_body,
                                             const mgw_response_sink* error) {
  const Json request = parse_json(client_body);
  if (!request.is_object()) {
    fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
    return std::nullopt;
  }
  Json inner = Json::object();
  try {
    const Json* messages = member(request, "messages");
    TranslatedMessages translated = translate_messages(messages == nullptr ? Json() : *messages);
    inner["model"] = parse_json(model_resource_json(view(call.upstream_model)));
    inner["contents"] = std::move(translated.contents);
    if (!translated.system_instruction.is_null()) {
      inner["systemInstruction"] = std::move(translated.system_instruction);
    }
    if (Json t = tools(request); !t.is_null()) {
      inner["tools"] = std::move(t);
    }
  } catch (const InvalidRequest& e) {
    fail(error, 400, kInvalidParameter, e.message(), e.param());
    return std::nullopt;
  }
  Json body = Json::object();
  body["generateContentRequest"] = std::move(inner);
  return dump(body);
}

void map_count_tokens_response(const ErrorContext& ctx, const mgw_call_context& /*call*/, int32_t status,
                               const mgw_header* headers, std::size_t header_count, std::string_view body,
                               const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    emit_error(&out, map_http_error(ctx, status, headers, header_count, body));
    return;
  }
  const Json doc = parse_bounded(body);
  if (doc.is_discarded()) {
    return bad_count(out, status, "with a body that is not JSON");
  }
  if (read_vendor_error(doc)) {
    std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
    emit_error(&out, provider_failed(with_vendor_message(std::move(prefix), doc, ctx.api_key), true));
    return;
  }
  if (!doc.is_object()) {
    return bad_count(out, status, "with a JSON body that is not an object");
  }
  int64_t total = 0;
  if (const Json* t = member(doc, "totalTokens"); t != nullptr) {
    const auto n = count_value(*t);
    if (!n) {
      return bad_count(out, status, "with a \"totalTokens\" that is not a number");
    }
    total = *n;
  }
  if (out.callback_body != nullptr) {
    const std::string answer = R"({"input_tokens":)" + std::to_string(total) + "}";
    out.callback_body(out.host_data, str(answer));
  }
}

}  // namespace mgw::gemini
