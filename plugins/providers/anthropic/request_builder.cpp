#include "request_builder.h"

#include "beta_header.h"
#include "message_translator.h"
#include "messages_request.h"
#include "rejection.h"
#include "tool_translator.h"

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

// Anthropic requires max_tokens; this is sent when neither the client nor the
// catalog gives one.
constexpr int64_t kFallbackMaxTokens = 4096;

// max_completion_tokens is OpenAI's current name, max_tokens the deprecated
// one; the current name wins when both are sent.
int64_t max_tokens(const Json& request, const mgw_call_context& call) {
  for (std::string_view key : {"max_completion_tokens", "max_tokens"}) {
    const Json* v = member(request, key);
    if (v == nullptr) {
      continue;
    }
    // Non-negative JSON integers parse as unsigned; anything else (negative,
    // fractional, a string) is not a token count.
    if (!v->is_number_unsigned() || v->get<uint64_t>() < 1 ||
        v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      reject_invalid(std::string(key), std::string(key) + " must be a positive integer");
    }
    return static_cast<int64_t>(v->get<uint64_t>());
  }
  if (call.default_max_tokens > 0) {
    return call.default_max_tokens;
  }
  return kFallbackMaxTokens;
}

// Anthropic produces one choice per request.
void check_n(const Json& request) {
  const Json* n = member(request, "n");
  if (n != nullptr && n->is_number() && n->get<double>() > 1) {
    reject_unsupported("n",
                       "n > 1 is not supported by the anthropic provider: it returns one choice per request");
  }
}

void copy_sampling(const Json& request, Json& out) {
  if (const Json* t = member(request, "temperature")) {
    if (!t->is_number()) {
      reject_invalid("temperature", "temperature must be a number");
    }
    // OpenAI accepts 0–2, Anthropic 0–1. Rescaling would change what the
    // client asked for, so a value only OpenAI takes is refused, clearly.
    if (t->get<double>() > 1) {
      reject_unsupported("temperature",
                         "temperature above 1 is not supported by Anthropic models (range 0 to 1)");
    }
    out["temperature"] = *t;
  }
  if (const Json* p = member(request, "top_p")) {
    if (!p->is_number()) {
      reject_invalid("top_p", "top_p must be a number");
    }
    out["top_p"] = *p;
  }
}

void copy_stop(const Json& request, Json& out) {
  const Json* stop = member(request, "stop");
  if (stop == nullptr) {
    return;
  }
  Json sequences = Json::array();
  if (stop->is_string()) {
    sequences.push_back(*stop);
  } else if (stop->is_array() &&
             std::all_of(stop->begin(), stop->end(), [](const Json& s) { return s.is_string(); })) {
    sequences = *stop;
  } else {
    reject_invalid("stop", "stop must be a string or an array of strings");
  }
  if (!sequences.empty()) {
    out["stop_sequences"] = std::move(sequences);
  }
}

void copy_user(const Json& request, Json& out) {
  const Json* user = member(request, "user");
  if (user == nullptr) {
    return;
  }
  if (!user->is_string()) {
    reject_invalid("user", "user must be a string");
  }
  if (!user->get_ref<const std::string&>().empty()) {
    out["metadata"] = Json{{"user_id", *user}};
  }
}

// Everything not read here (frequency_penalty, presence_penalty, logprobs,
// response_format, seed, stream_options, request_id, …) is dropped: the
// gateway checked the parameters against the catalog before calling us.
Json translate(const Json& request, const mgw_call_context& call) {
  check_n(request);
  Json out = Json::object();
  out["model"] = view(call.upstream_model);
  out["max_tokens"] = max_tokens(request, call);
  const Json* messages = member(request, "messages");
  Conversation conversation = translate_messages(messages != nullptr ? *messages : Json());
  if (!conversation.system.empty()) {
    out["system"] = std::move(conversation.system);
  }
  out["messages"] = std::move(conversation.messages);
  copy_sampling(request, out);
  copy_stop(request, out);
  if (call.stream != 0) {
    out["stream"] = true;
  }
  std::optional<Json> tool_list = tools(request);
  std::optional<Json> choice = tool_choice(request, tool_list.has_value());
  if (tool_list) {
    out["tools"] = std::move(*tool_list);
  }
  if (choice) {
    out["tool_choice"] = std::move(*choice);
  }
  copy_user(request, out);
  return out;
}

// The chat body's count_tokens request, for a provider that does not serve
// "messages" (the host then sends count_tokens a chat completions body): the
// chat translation, cut to what the counting endpoint takes.
Json counted_chat(const Json& request, const mgw_call_context& call) {
  Json translated = translate(request, call);
  Json out = Json::object();
  out["model"] = view(call.upstream_model);
  for (auto it = translated.begin(); it != translated.end(); ++it) {
    if (counted_member(it.key())) {
      out[it.key()] = std::move(it.value());
    }
  }
  return out;
}

// The chat body, or the counted chat body. nullopt after callback_error.
std::optional<std::string> chat_body(const mgw_call_context& call, std::string_view client_body, bool counted,
                                     const mgw_response_sink* error) {
  // The host promises a JSON object with model and messages; a broken promise
  // is still refused rather than trusted.
  const Json request = parse_json(client_body);
  if (!request.is_object()) {
    fail(error, 400, kInvalidParameter, "the request body is not a JSON object");
    return std::nullopt;
  }
  try {
    return dump(counted ? counted_chat(request, call) : translate(request, call));
  } catch (const Rejection& r) {
    fail(error, r.http_status, r.code, r.message, r.param);
    return std::nullopt;
  }
}

struct Target {
  std::string body;
  std::string_view path;
  bool native = false;  // the client's own API: its anthropic-beta goes along
  bool event_stream = false;
};

void emit_request(const ProviderConfig& config, const mgw_call_context& call, const Target& target,
                  const mgw_request_sink& out) {
  if (out.callback_method != nullptr) {
    out.callback_method(out.host_data, str("POST"));
  }
  if (out.callback_path != nullptr) {
    out.callback_path(out.host_data, str(target.path));
  }
  if (out.callback_header != nullptr) {
    std::string_view configured_beta;
    for (const auto& h : config.headers) {
      if (target.native && iequals(h.name, "anthropic-beta")) {
        configured_beta = h.value;  // sent below, with the client's
        continue;
      }
      out.callback_header(out.host_data, str(h.name), str(h.value));
    }
    if (target.native) {
      const std::string beta = merged_beta(configured_beta, client_header(call, "anthropic-beta"));
      if (!beta.empty()) {
        out.callback_header(out.host_data, str("anthropic-beta"), str(beta));
      }
    }
    if (!config.custom_accept) {
      out.callback_header(out.host_data, str("accept"),
                          str(target.event_stream ? "text/event-stream" : "application/json"));
    }
  }
  if (out.callback_body != nullptr) {
    out.callback_body(out.host_data, str(target.body));
  }
}

}  // namespace

mgw_status build_request(const ProviderConfig& config, const mgw_call_context& call,
                         std::string_view client_body, const mgw_request_sink& out,
                         const mgw_response_sink* error) {
  const std::string_view op = operation(call);
  std::optional<std::string> body;
  Target target;
  if (op == MGW_OPERATION_CHAT) {
    body = chat_body(call, client_body, /*counted=*/false, error);
    target.path = kMessagesPath;
    target.event_stream = call.stream != 0;
  } else if (op == MGW_OPERATION_MESSAGES && config.serves(MGW_OPERATION_MESSAGES)) {
    body = messages_body(call, client_body, error);
    target.path = kMessagesPath;
    target.native = true;
    target.event_stream = call.stream != 0;
  } else if (op == MGW_OPERATION_COUNT_TOKENS && config.serves(MGW_OPERATION_COUNT_TOKENS)) {
    // A Messages body when this provider declared "messages", else a chat one.
    body = config.serves(MGW_OPERATION_MESSAGES) ? count_tokens_body(call, client_body, error)
                                                 : chat_body(call, client_body, /*counted=*/true, error);
    target.path = kCountTokensPath;
    target.native = true;
  } else {
    // The host sends only the operations a provider declared.
    fail(error, 500, kInternalError, "the anthropic provider does not serve this operation");
    return MGW_UNSUPPORTED;
  }
  if (!body) {
    return MGW_INVALID_ARGUMENT;
  }
  target.body = std::move(*body);
  emit_request(config, call, target, out);
  return MGW_OK;
}

}  // namespace mgw::anthropic
