// Stored responses of the Responses API (`store`, OpenAI's default): each
// answered turn is kept per tenant through the storage plugin (ABI 1.9), read
// back to continue a conversation (`previous_response_id`) and by
// GET/DELETE /v1/responses/{id}; kept for responses.retention_days, then
// purged in the background. A turn holds the chat messages its own input
// became after the PII stage (what the vendor was sent, masked where the
// tenant's policy masks), and the response object.
#pragma once

#include "config/config.h"
#include "errors/api_error.h"
#include "net/blocking_pool.h"
#include "plugins/storage.h"
#include "util/batch_purge.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <variant>

namespace modelgw::responses {

class ResponseStore {
 public:
  ResponseStore(plugins::Storage& storage, net::BlockingPool& blocking, config::ResponsesConfig config);
  ~ResponseStore();
  ResponseStore(const ResponseStore&) = delete;
  ResponseStore& operator=(const ResponseStore&) = delete;

  void start();  // the purge thread
  void stop();

  // The conversation that ends with the tenant's response `id` (each turn's
  // input, then its output), oldest first: as chat messages, and with
  // `as_items` also as a native request's input items (native_request.h); or
  // a 400 naming previous_response_id when it, or a turn before it, is not
  // kept.
  struct Conversation {
    nlohmann::json messages;
    nlohmann::json items;  // null unless asked for
  };
  net::Task<std::variant<Conversation, errors::ApiError>> conversation(std::int64_t tenant_id, std::string id,
                                                                       bool as_items = false);
  // Keeps one answered turn; false (logged) when the store refused it.
  net::Task<bool> keep(plugins::StoredResponse record);

  static std::int64_t now_unix_ms();
  std::int64_t expires_at(std::int64_t created_unix_ms) const {
    return created_unix_ms + config_.retention_ms;
  }
  plugins::Storage& storage() { return storage_; }

 private:
  plugins::Storage& storage_;
  net::BlockingPool& blocking_;
  config::ResponsesConfig config_;
  util::BatchPurge purge_;
};

}  // namespace modelgw::responses
