// A chat answer as idempotency keeps it: what the first request with a key
// answered, captured as it was buffered, stored with the key, and replayed to
// every retry byte for byte (the body and the stream's events hold the
// original request_id; only Date and the replay marker differ).
#pragma once

#include "http/server_call.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::idempotency {

struct StoredResponse {
  std::string request_id;  // the request that made the call
  int status = 0;
  bool stream = false;
  std::vector<std::pair<std::string, std::string>> headers;  // those a replay repeats
  std::string body;                                          // a whole answer
  std::vector<std::string> events;                           // a stream's pieces, [DONE] included
  bool ended = false;                                        // the stream's last chunk was sent
  // Kept without its body: it was larger than idempotency.max_response_bytes.
  bool too_large = false;

  std::size_t bytes() const;
};

// Whether a header the first answer carried is repeated by a replay: not the
// ones that describe the moment (rate-limit standing, Retry-After).
bool replays_header(std::string_view name);

// The stored form (JSON text) and back; nullopt for text that is not one.
std::string encode(const StoredResponse& response);
std::optional<StoredResponse> decode(std::string_view text);

// Writes the head of `response` to `call` (its status and headers,
// Idempotent-Replayed: true, the original request_id), and for a whole
// answer its body.
void replay_head(const StoredResponse& response, http::ServerCall& call);
// All of it: the head, every event, and the end.
void replay(const StoredResponse& response, http::ServerCall& call);

}  // namespace modelgw::idempotency
