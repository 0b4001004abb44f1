// POST /v1/messages/count_tokens as a front door with a chain of its own
// (count_tokens_chain.cpp): the body of a Messages request, checked as
// /v1/messages checks it (max_tokens optional), counted and never billed.
// open() gives the chat form (for the gateway's own count, and for a
// provider that counts in chat form) and, as `native`, the Messages form (for
// a provider that also speaks the Messages API: its count then sees every
// block as the client wrote it).
#pragma once

#include "messages/messages_door.h"

namespace modelgw::messages {

class CountTokensDoor final : public chat::FrontDoor {
 public:
  Chain chain() const override { return Chain::count_tokens; }
  std::string_view operation() const override { return "count_tokens"; }
  std::string_view body_members() const override { return "model and messages"; }
  net::Task<std::variant<chat::DoorRequest, errors::ApiError>> open(nlohmann::json body,
                                                                    std::string_view text,
                                                                    std::int64_t tenant_id,
                                                                    std::string_view request_id,
                                                                    bool native) const override;
  std::string param_name(std::string_view chat_param) const override {
    return messages_.param_name(chat_param);
  }
  std::string_view output_limit_member() const override { return {}; }
  std::span<const std::string_view> forwarded_headers() const override {
    return messages_.forwarded_headers();
  }

 private:
  MessagesDoor messages_;
};

}  // namespace modelgw::messages
