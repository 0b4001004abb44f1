// The fake's prompt cache for Anthropic requests with cache_control blocks,
// so tests see cache writes and reads as Anthropic reports them:
//
//   The cached prefix ends at the last block carrying "cache_control", in
//   Anthropic's order: tools, then system, then messages. It holds every
//   tool up to that one, and, when the marker is in system or a message,
//   the whole system and every message up to and including the marked one.
//   Its tokens C are the reply.h prompt formula over the system and messages
//   it holds (tools count nothing, as in P), so a marker on a tool alone
//   caches 0 tokens.
//   The first request of this process with a given (model, prefix) reports
//   cache_creation_input_tokens = C; every later one cache_read_input_tokens
//   = C; both report input_tokens = P - C, so the three sum to P. A request
//   without cache_control reports neither. The process remembers at most
//   4096 prefixes (then forgets them all and starts over).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace fake_upstream::anthropic {

struct CacheUsage {
  bool cached = false;  // the request has a cache_control block
  int creationTokens = 0;
  int readTokens = 0;
};

// Looks the request's cached prefix up (and remembers it). `body` is a
// validated Messages body; `model` the model without fault directives.
CacheUsage cacheUsageFor(const nlohmann::json& body, std::string_view model);

}  // namespace fake_upstream::anthropic
