// POST /v1/embeddings as a front door (chat/front_door.h) with a chain of its
// own (embeddings_chain.cpp): the same authentication, idempotency, PII,
// rate limits, spend hold and settle, usage record and audit as chat, but
// nothing is generated (the hold is the input alone), nothing is streamed,
// and a request larger than the model's max_inputs is split into batches
// whose answers are joined in input order.
#pragma once

#include "chat/front_door.h"

namespace modelgw::embeddings {

class EmbeddingsDoor final : public chat::FrontDoor {
 public:
  Chain chain() const override { return Chain::embeddings; }
  std::string_view operation() const override { return "embeddings"; }
  std::string_view body_members() const override { return "model and input"; }
  // Not used: this door's chain reads its body itself.
  net::Task<std::variant<chat::DoorRequest, errors::ApiError>> open(nlohmann::json /*body*/,
                                                                    std::string_view /*text*/,
                                                                    std::int64_t /*tenant_id*/,
                                                                    std::string_view /*request_id*/,
                                                                    bool /*native*/) const override {
    co_return errors::internal_error();
  }
  std::string param_name(std::string_view chat_param) const override { return std::string(chat_param); }
  std::string_view output_limit_member() const override { return {}; }
};

}  // namespace modelgw::embeddings
