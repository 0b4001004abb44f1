// The x-ratelimit-* header fields of an answer, as OpenAI sends them (its
// rate limits guide): for requests and for tokens, the limit the request was
// counted against, what is left of it and the time until it resets ("250ms",
// "17s", "1m0s"). Kept as numbers until the response head is written, then
// written straight into it: the money path used to build six name and value
// strings per request and move them twice, each move searching the fields
// already set.
#pragma once

#include <cstdint>
#include <string>

namespace modelgw::http {

struct RateLimitFields {
  struct Limit {
    std::int64_t limit = -1;  // below 0: no limit of this kind was counted
    std::int64_t remaining = 0;
    std::int64_t reset_ms = 0;
  };
  Limit requests;
  Limit tokens;

  bool empty() const { return requests.limit < 0 && tokens.limit < 0; }
  // A later admission's standing replaces this one's, kind by kind.
  void update(const RateLimitFields& later);
  // Each field as "\r\nname: value": requests' three, then tokens'.
  void append_to(std::string& head) const;
};

}  // namespace modelgw::http
