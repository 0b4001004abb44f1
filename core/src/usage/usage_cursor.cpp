#include "usage/usage_cursor.h"

#include "auth/api_key.h"
#include "auth/jwt/base64url.h"

#include <charconv>

namespace modelgw::usage {
namespace {

// 16 hex digits of SHA-256 over the tenant, every filter and the seq.
std::string digest(const plugins::UsageFilter& f, std::int64_t seq) {
  std::string text = std::to_string(f.tenant_id) + '\n' + std::to_string(f.from_unix_ms) + '\n' +
                     std::to_string(f.to_unix_ms) + '\n' + f.model + '\n' +
                     (f.feature ? "1" + *f.feature : "0") + '\n' + std::to_string(f.key_id) + '\n' +
                     std::to_string(f.status_min) + '-' + std::to_string(f.status_max) + '\n' +
                     std::to_string(f.stream) + '\n' + std::to_string(seq);
  return auth::hash_api_key(text).substr(0, 16);  // lowercase hex SHA-256
}

}  // namespace

std::string encode_cursor(const plugins::UsageFilter& filter, std::int64_t seq) {
  return auth::jwt::base64url_encode("v1." + std::to_string(seq) + "." + digest(filter, seq));
}

std::optional<std::int64_t> decode_cursor(const plugins::UsageFilter& filter, std::string_view cursor) {
  if (cursor.empty() || cursor.size() > 128) return std::nullopt;
  const auto text = auth::jwt::base64url_decode(cursor);
  if (!text || text->rfind("v1.", 0) != 0) return std::nullopt;
  const std::string_view rest = std::string_view(*text).substr(3);
  const auto dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 19) return std::nullopt;
  std::int64_t seq = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + dot, seq);
  if (ec != std::errc() || end != rest.data() + dot || seq <= 0) return std::nullopt;
  if (rest.substr(dot + 1) != digest(filter, seq)) return std::nullopt;
  return seq;
}

}  // namespace modelgw::usage
