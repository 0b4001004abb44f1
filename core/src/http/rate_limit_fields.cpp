#include "http/rate_limit_fields.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace modelgw::http {
namespace {

// The three fields' names of one kind, each with what comes before its value.
struct Names {
  std::string_view limit, remaining, reset;
};
constexpr Names kRequests{"\r\nx-ratelimit-limit-requests: ", "\r\nx-ratelimit-remaining-requests: ",
                          "\r\nx-ratelimit-reset-requests: "};
constexpr Names kTokens{
    "\r\nx-ratelimit-limit-tokens: ", "\r\nx-ratelimit-remaining-tokens: ", "\r\nx-ratelimit-reset-tokens: "};

// Room for one kind's three fields: the names, two int64 and a reset.
constexpr std::size_t kKindBytes = 192;

char* put(char* at, std::string_view text) {
  return std::copy(text.begin(), text.end(), at);
}

char* put_number(char* at, std::int64_t n) {
  return std::to_chars(at, at + 20, n).ptr;  // 20 characters: any int64
}

// OpenAI's form of a time to reset: "250ms" under a second, "17s" under a
// minute, "1m0s" from there (seconds rounded up: never earlier than it is).
char* put_reset(char* at, std::int64_t ms) {
  if (ms < 1000) return put(put_number(at, std::max<std::int64_t>(ms, 0)), "ms");
  const std::int64_t s = (ms + 999) / 1000;
  if (s >= 60) {
    at = put_number(at, s / 60);
    *at++ = 'm';
  }
  at = put_number(at, s < 60 ? s : s % 60);
  *at++ = 's';
  return at;
}

// One kind's fields, formatted on the stack and appended at once.
void append_limit(std::string& out, const RateLimitFields::Limit& l, const Names& names) {
  if (l.limit < 0) return;
  char fields[kKindBytes];
  char* at = put_number(put(fields, names.limit), l.limit);
  at = put_number(put(at, names.remaining), l.remaining);
  at = put_reset(put(at, names.reset), l.reset_ms);
  out.append(fields, at);
}

}  // namespace

void RateLimitFields::update(const RateLimitFields& later) {
  if (later.requests.limit >= 0) requests = later.requests;
  if (later.tokens.limit >= 0) tokens = later.tokens;
}

void RateLimitFields::append_to(std::string& head) const {
  append_limit(head, requests, kRequests);
  append_limit(head, tokens, kTokens);
}

}  // namespace modelgw::http
