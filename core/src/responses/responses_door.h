// POST /v1/responses as a front door of the chat chain (chat/front_door.h):
// the request translated by responses_request, the answer written by
// response_object (whole) and response_events (streamed). Every stage of the
// chain (keys and scopes, idempotency, PII, routing and fallback, rate
// limits, spend hold and settlement, the usage record, audit) applies as it
// does to chat, because it is the same chain.
#pragma once

#include "chat/front_door.h"

namespace modelgw::responses {

class ResponsesDoor final : public chat::FrontDoor {
 public:
  std::string_view operation() const override { return "responses"; }
  std::variant<chat::DoorRequest, http::ApiError> translate(nlohmann::json body) const override;
  std::string param_name(std::string_view chat_param) const override;
};

}  // namespace modelgw::responses
