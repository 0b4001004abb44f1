// POST /v1/responses as a front door of the chat chain (chat/front_door.h):
// the request translated by responses_request (a conversation continued by
// previous_response_id is read from the response store first), the answer
// written by response_object (whole) and response_events (streamed), and,
// with `store`, the answered turn kept in the response store before its last
// bytes go out. Every stage of the chain (keys and scopes, idempotency, PII,
// routing and fallback, rate limits, spend hold and settlement, the usage
// record, audit) applies as it does to chat, because it is the same chain.
#pragma once

#include "chat/front_door.h"

namespace modelgw::responses {

class ResponseStore;

class ResponsesDoor final : public chat::FrontDoor {
 public:
  // `store`: where answered turns are kept; nullptr when the storage plugin
  // keeps none (store: true and previous_response_id are then refused).
  explicit ResponsesDoor(ResponseStore* store = nullptr) : store_(store) {}

  std::string_view operation() const override { return "responses"; }
  std::string_view body_members() const override { return "model and input"; }
  net::Task<std::variant<chat::DoorRequest, errors::ApiError>> open(nlohmann::json body,
                                                                    std::string_view text,
                                                                    std::int64_t tenant_id,
                                                                    std::string_view request_id,
                                                                    bool native) const override;
  std::string param_name(std::string_view chat_param) const override;
  std::string_view output_limit_member() const override { return "max_output_tokens"; }

 private:
  ResponseStore* store_;
};

}  // namespace modelgw::responses
