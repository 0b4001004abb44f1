#include "response_mapper.h"

#include "stop_reason.h"
#include "usage.h"
#include "vendor_error.h"

#include <modelgw/provider/json.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <string>
#include <utility>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

// A 2xx Anthropic should never send. Retryable: the same call usually gets a
// proper answer. The message says what was wrong, never the bytes.
void bad_success(const mgw_response_sink& out, int32_t status, std::string_view what) {
  emit_error(&out, provider_failed(
                       "upstream provider returned HTTP " + std::to_string(status) + " " + std::string(what),
                       /*retryable=*/true));
}

struct Message {
  std::string text;
  bool has_text = false;
  Json tool_calls = Json::array();
  std::size_t generated_bytes = 0;  // for the estimate when usage is missing
};

// Text blocks join into `content`; tool_use blocks become tool calls.
// Thinking, redacted thinking and server-tool blocks have no place in a chat
// completion and are left out.
Message read_content(const Json& content) {
  Message m;
  for (const Json& block : content) {
    const std::string_view type = string_member(block, "type");
    if (type == "text") {
      m.text += string_member(block, "text");
      m.has_text = true;
    } else if (type == "tool_use") {
      const Json* input = member(block, "input");
      std::string arguments = input != nullptr ? dump(*input) : std::string("{}");
      m.generated_bytes += arguments.size();
      m.tool_calls.push_back(
          Json{{"id", string_member(block, "id")},
               {"type", "function"},
               {"function", {{"name", string_member(block, "name")}, {"arguments", arguments}}}});
    }
  }
  m.generated_bytes += m.text.size();
  return m;
}

}  // namespace

void map_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t status,
                  const mgw_header* headers, std::size_t header_count, std::string_view body,
                  const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    emit_error(&out, map_http_error(ctx, status, headers, header_count, body));
    return;
  }
  const Json doc = parse_bounded(body);
  if (doc.is_discarded()) {
    return bad_success(out, status, "with a body that is not JSON");
  }
  if (!doc.is_object()) {
    return bad_success(out, status, "with a JSON body that is not an object");
  }
  if (string_member(doc, "type") == "error" || member(doc, "error") != nullptr) {
    const auto vendor = read_vendor_error(doc);
    const std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
    emit_error(&out, provider_failed(with_vendor_message(prefix, doc, ctx.api_key),
                                     is_transient(vendor ? vendor->type : std::string_view{})));
    return;
  }
  const Json* content = member(doc, "content");
  if (string_member(doc, "type") != "message" || content == nullptr || !content->is_array()) {
    return bad_success(out, status, "with a JSON body that is not a message");
  }

  const Message m = read_content(*content);
  Json message = Json::object();
  message["role"] = "assistant";
  message["content"] = m.has_text ? Json(m.text) : Json();
  message["refusal"] = nullptr;  // required by OpenAI's schema, nullable
  if (!m.tool_calls.empty()) {
    message["tool_calls"] = m.tool_calls;
  }
  TokenCounts counts;
  if (const Json* u = member(doc, "usage")) {
    counts.merge(*u);
  }
  const mgw_usage usage = reported_usage(counts, host_prompt_tokens(call), m.generated_bytes);

  const std::string_view id = string_member(doc, "id");
  Json completion = Json::object();
  // OpenAI's id form, so a client cannot tell the vendor; Anthropic's own id
  // stays inside it for support.
  completion["id"] = "chatcmpl-" + (id.empty() ? std::string(view(call.request_id)) : std::string(id));
  completion["object"] = "chat.completion";
  completion["created"] = call.created_unix;
  completion["model"] = view(call.alias);
  // No "system_fingerprint": Anthropic has none, and OpenAI's schema makes it
  // a string when present. "logprobs" is required there (nullable).
  completion["choices"] =
      Json::array({Json{{"index", 0},
                        {"message", std::move(message)},
                        {"logprobs", nullptr},
                        {"finish_reason", finish_reason(string_member(doc, "stop_reason"))}}});
  completion["usage"] = usage_json(usage);

  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  if (out.callback_body != nullptr) {
    out.callback_body(out.host_data, str(dump(completion)));
  }
}

}  // namespace mgw::anthropic
