// Assertions and expectations shared by the test files: the error envelope,
// request ids, the fake upstream's deterministic reply and token formula, a
// summary of a relayed SSE stream, and the text edits of config and log checks.
#pragma once

#include "harness/http_client.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace it {

using json = nlohmann::json;

// "req_" followed by 24 base62 characters.
bool is_request_id(const std::string& id);

// The full error contract: status, JSON content type, {"error":{type, code,
// message, param, request_id}} and nothing else at the top, request_id equal
// to X-Request-Id and well formed. `param` nullopt means it must be null.
::testing::AssertionResult IsApiError(const HttpResponse& response, int status, const std::string& type,
                                      const std::string& code,
                                      const std::optional<std::string>& param = std::nullopt);

// {"model": model, "messages": [{"role":"user","content": text}], "stream": stream}
std::string chat_body(const std::string& model, const std::string& user_text, bool stream = false);
json user_messages(const std::string& user_text);

// The fake upstream's reply and usage for these messages (its README).
std::string fake_reply(const json& messages);
json fake_usage(const json& messages, const std::string& reply);

// What a relayed stream amounted to.
struct StreamSummary {
  std::vector<json> chunks;                      // every data event but [DONE], parsed
  std::vector<std::string> raw;                  // the same, as sent
  std::vector<std::string> deltas;               // non-empty delta.content values, in order
  std::vector<std::size_t> content_event_index;  // event index of each delta
  std::string content;                           // deltas joined
  std::optional<json> usage_chunk;               // the chunk with "choices": [] and usage
  std::optional<json> error;                     // a data: {"error":...} event
  bool all_json = true;
  bool done_last = false;  // the last event is exactly [DONE]
  int done_count = 0;
};
StreamSummary summarize(const std::vector<SseEvent>& events);

// Polls `pred` every 50 ms until it holds or `limit` passes; its last answer.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
  for (auto waited = std::chrono::milliseconds(0); waited < limit; waited += std::chrono::milliseconds(50)) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

// The lines of `text` that contain `needle`.
std::vector<std::string> lines_containing(const std::string& text, const std::string& needle);

// `text` with the first `from` replaced by `to`; throws when `from` is not in it.
std::string replace_once(std::string text, const std::string& from, const std::string& to);

}  // namespace it
