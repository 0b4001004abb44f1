#include "response_mapper.h"

#include "candidate_mapper.h"
#include "usage.h"
#include "vendor_error.h"

#include <modelgw/provider/json.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <string>
#include <utility>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

// A 2xx Gemini should never send. Retryable: the same call usually gets a
// proper answer. The message says what was wrong, never the bytes.
void bad_success(const mgw_response_sink& out, int32_t status, std::string_view what) {
  emit_error(&out, provider_failed(
                       "upstream provider returned HTTP " + std::to_string(status) + " " + std::string(what),
                       /*retryable=*/true));
}

Json message_json(const CandidateParts& parts, int64_t index) {
  Json message = Json::object();
  message["role"] = "assistant";
  message["content"] = parts.has_text ? Json(parts.text) : Json(nullptr);
  message["refusal"] = nullptr;  // required by OpenAI's schema, nullable
  if (!parts.calls.empty()) {
    Json calls = Json::array();
    for (std::size_t k = 0; k < parts.calls.size(); ++k) {
      const FunctionCall& c = parts.calls[k];
      calls.push_back(tool_call_json(c, tool_call_id(c, index, static_cast<int64_t>(k))));
    }
    message["tool_calls"] = std::move(calls);
  }
  return message;
}

Json choice_json(int64_t index, Json message, std::string_view finish) {
  Json choice = Json::object();
  choice["index"] = index;
  choice["message"] = std::move(message);
  choice["logprobs"] = nullptr;  // required by OpenAI's schema, nullable
  choice["finish_reason"] = finish;
  return choice;
}

// The choices of a response with candidates; `generated` counts their bytes.
Json candidate_choices(const Json& candidates, std::size_t& generated) {
  Json choices = Json::array();
  std::size_t position = 0;
  for (const Json& candidate : candidates) {
    if (!candidate.is_object()) {
      continue;
    }
    const int64_t index = candidate_index(candidate, position++);
    const CandidateParts parts = read_parts(candidate);
    generated += parts.generated_bytes();
    // A complete response without a finishReason is read as STOP: the answer
    // is whole, and OpenAI clients expect a reason on every choice.
    std::string_view reason = string_member(candidate, "finishReason");
    if (reason.empty()) {
      reason = "STOP";
    }
    choices.push_back(
        choice_json(index, message_json(parts, index), finish_reason(reason, !parts.calls.empty())));
  }
  return choices;
}

// What OpenAI sends for output its filter stopped: no content, and a reason
// the client can act on.
Json blocked_choices() {
  Json message = Json::object();
  message["role"] = "assistant";
  message["content"] = nullptr;
  message["refusal"] = nullptr;
  return Json::array({choice_json(0, std::move(message), "content_filter")});
}

std::string completion_id(const Json& doc, const mgw_call_context& call) {
  const std::string_view response_id = string_member(doc, "responseId");
  return "chatcmpl-" + std::string(response_id.empty() ? view(call.request_id) : response_id);
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
  if (read_vendor_error(doc)) {
    std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
    emit_error(&out, provider_failed(with_vendor_message(std::move(prefix), doc, ctx.api_key), true));
    return;
  }
  if (!doc.is_object()) {
    return bad_success(out, status, "with a JSON body that is not an object");
  }

  std::size_t generated = 0;
  Json choices;
  const Json* candidates = member(doc, "candidates");
  const Json* feedback = member(doc, "promptFeedback");
  if (candidates != nullptr && !candidates->is_array()) {
    return bad_success(out, status, "with a \"candidates\" member that is not an array");
  }
  if (candidates != nullptr && !candidates->empty()) {
    choices = candidate_choices(*candidates, generated);
  } else if (feedback != nullptr && !string_member(*feedback, "blockReason").empty()) {
    choices = blocked_choices();
  } else {
    // Gemini's contract: no candidates only when the prompt was blocked.
    return bad_success(out, status, "without candidates or a prompt block reason");
  }

  const Json* metadata = member(doc, "usageMetadata");
  const Usage usage = metadata != nullptr && metadata->is_object()
                          ? read_usage(*metadata)
                          : estimate_usage(host_prompt_tokens(call), generated);

  Json completion = Json::object();
  completion["id"] = completion_id(doc, call);
  completion["object"] = "chat.completion";
  completion["created"] = call.created_unix;
  completion["model"] = view(call.alias);
  // No "system_fingerprint": Gemini has none, and OpenAI's schema makes it a
  // string when present.
  completion["choices"] = std::move(choices);
  completion["usage"] = usage_json(usage);

  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage.counts);
  }
  if (out.callback_body != nullptr) {
    out.callback_body(out.host_data, str(dump(completion)));
  }
}

}  // namespace mgw::gemini
