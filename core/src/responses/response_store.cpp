#include "responses/response_store.h"

#include "responses/native_request.h"
#include "responses/responses_request.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <vector>

namespace modelgw::responses {
namespace {

errors::ApiError not_kept(const std::string& id, bool first) {
  return errors::bad_request(
      "previous_response_not_found",
      first ? "previous response '" + errors::input_excerpt(id) +
                  "' is not kept: it was never stored (store: false), expired, was deleted, "
                  "or belongs to another tenant"
            : "a turn before the previous response ('" + errors::input_excerpt(id) +
                  "') is no longer kept; start the conversation again with its items in input",
      "previous_response_id");
}

}  // namespace

std::int64_t ResponseStore::now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

ResponseStore::ResponseStore(plugins::Storage& storage, net::BlockingPool& blocking,
                             config::ResponsesConfig config)
    : storage_(storage),
      blocking_(blocking),
      config_(config),
      purge_("responses", "expired responses",
             [this](std::int64_t now, std::int64_t limit) { return storage_.response_purge(now, limit); }) {}

ResponseStore::~ResponseStore() {
  stop();
}

void ResponseStore::stop() {
  purge_.stop();
}

void ResponseStore::start() {
  purge_.start("mgw-resp-purge", std::chrono::milliseconds(config_.purge_interval_ms));
}

net::Task<std::variant<ResponseStore::Conversation, errors::ApiError>> ResponseStore::conversation(
    std::int64_t tenant_id, std::string id, bool as_items) {
  const int max_turns = config_.max_turns;
  co_return co_await net::offload(blocking_, [&]() -> std::variant<Conversation, errors::ApiError> {
    // Newest first, by each turn's previous_id; bounded in turns, and a
    // chain that loops back (a store edited by hand) ends at the repeat.
    std::vector<plugins::StoredResponse> turns;
    std::set<std::string> seen;
    std::string next = id;
    while (!next.empty() && !seen.count(next)) {
      if (static_cast<int>(turns.size()) >= max_turns) {
        return errors::ApiError{422, "conversation_too_long",
                                "the conversation before '" + errors::input_excerpt(id) + "' has more than " +
                                    std::to_string(max_turns) +
                                    " turns (responses.max_turns); start again with its items in input",
                                "previous_response_id"};
      }
      auto turn = storage_.response_get(tenant_id, next, now_unix_ms());
      if (!turn) return not_kept(next, turns.empty());
      seen.insert(next);
      next = turn->previous_id;
      turns.push_back(std::move(*turn));
    }
    Conversation out{nlohmann::json::array(), as_items ? nlohmann::json::array() : nlohmann::json()};
    for (auto it = turns.rbegin(); it != turns.rend(); ++it) {
      nlohmann::json input = nlohmann::json::parse(it->input_json, nullptr, false);
      const nlohmann::json response = nlohmann::json::parse(it->response_json, nullptr, false);
      if (as_items) append_turn_items(out.items, input, response);
      if (input.is_array()) {
        for (auto& m : input) out.messages.push_back(std::move(m));
      }
      if (response.is_object() && response.contains("output")) {
        for (auto& m : output_messages(response["output"])) out.messages.push_back(std::move(m));
      }
    }
    return out;
  });
}

net::Task<bool> ResponseStore::keep(plugins::StoredResponse record) {
  co_return co_await net::offload(blocking_, [&] {
    try {
      storage_.response_put(record);
      return true;
    } catch (const std::exception& e) {
      spdlog::warn("responses: keeping response {} failed: {}", record.id, e.what());
      return false;
    }
  });
}

}  // namespace modelgw::responses
