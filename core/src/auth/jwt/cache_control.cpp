#include "auth/jwt/cache_control.h"

#include "util/ascii.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace modelgw::auth::jwt {
namespace {

// RFC 9111 1.2.2: a delta-seconds too large to represent counts as 2^31.
constexpr std::int64_t kMaxDeltaSeconds = 2147483648LL;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

using util::iequals;

// Nullopt when `value` is not delta-seconds.
std::optional<std::int64_t> delta_seconds(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  if (value.empty()) return std::nullopt;
  std::int64_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    n = std::min(n * 10 + (c - '0'), kMaxDeltaSeconds);
  }
  return n;
}

}  // namespace

std::optional<std::chrono::seconds> cache_lifetime(std::string_view header) {
  std::optional<std::int64_t> lifetime;
  while (!header.empty()) {
    const auto comma = header.find(',');
    const std::string_view directive = trim(header.substr(0, comma));
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    const auto equals = directive.find('=');
    const std::string_view name = trim(directive.substr(0, equals));
    if (iequals(name, "no-store") || iequals(name, "no-cache")) return std::chrono::seconds(0);
    if (!iequals(name, "max-age")) continue;
    const auto value =
        equals == std::string_view::npos ? std::nullopt : delta_seconds(trim(directive.substr(equals + 1)));
    const std::int64_t seconds = value.value_or(0);
    lifetime = lifetime ? std::min(*lifetime, seconds) : seconds;
  }
  if (!lifetime) return std::nullopt;
  return std::chrono::seconds(*lifetime);
}

}  // namespace modelgw::auth::jwt
