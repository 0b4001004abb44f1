// POST /v1/messages (Anthropic's Messages API) as a front door of the chat
// chain (chat/front_door.h): the request translated by messages_request, the
// answer written by message_object (whole) and message_events (streamed), or,
// when the provider serves the API natively, the vendor's own answer passed
// on by native_answer. Every stage of the chain (keys and scopes,
// idempotency, PII, routing and fallback, rate limits, spend hold and
// settlement, the usage record, audit) applies as it does to chat.
#pragma once

#include "chat/front_door.h"
#include "messages/messages_request.h"

#include <array>

namespace modelgw::messages {

class MessagesDoor final : public chat::FrontDoor {
 public:
  std::string_view operation() const override { return "messages"; }
  std::string_view body_members() const override { return "model, max_tokens and messages"; }
  net::Task<std::variant<chat::DoorRequest, errors::ApiError>> open(nlohmann::json body,
                                                                    std::string_view text,
                                                                    std::int64_t tenant_id,
                                                                    std::string_view request_id,
                                                                    bool native) const override;
  std::string param_name(std::string_view chat_param) const override;
  std::string_view output_limit_member() const override { return "max_tokens"; }
  std::span<const std::string_view> forwarded_headers() const override { return kForwarded; }

 private:
  static constexpr std::array<std::string_view, 1> kForwarded = {"anthropic-beta"};
};

// POST /v1/messages/count_tokens takes the same body: the same checks, with
// max_tokens optional, and the chat request whose prompt is counted (no
// stream: a count is never streamed). Errors name the Messages parameter.
std::variant<nlohmann::json, errors::ApiError> count_tokens_request(const nlohmann::json& body);

}  // namespace modelgw::messages
