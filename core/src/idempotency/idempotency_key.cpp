#include "idempotency/idempotency_key.h"

#include "util/ascii.h"
#include "util/sha256_hex.h"

#include <algorithm>
#include <cctype>

namespace modelgw::idempotency {
namespace {

using util::iequals;

http::ApiError bad_key(std::string message) {
  return http::bad_request("invalid_parameter", std::move(message), "Idempotency-Key");
}

}  // namespace

std::variant<std::monostate, std::string, http::ApiError> read_key(const http::Request& request) {
  const http::Field* found = nullptr;
  for (const http::Field& f : request.fields) {
    if (!iequals(f.name, "Idempotency-Key")) continue;
    if (found != nullptr) {
      return bad_key("Idempotency-Key was sent more than once; send one key per request");
    }
    found = &f;
  }
  if (found == nullptr) return std::monostate{};
  const std::string_view key = found->value;
  if (key.empty())
    return bad_key("Idempotency-Key is empty; send 1 to 255 printable ASCII characters (a UUID)");
  if (key.size() > kMaxKeyBytes) {
    return bad_key("Idempotency-Key is " + std::to_string(key.size()) +
                   " characters long; at most 255 are allowed (a UUID is 36)");
  }
  // Printable ASCII: 0x21..0x7E and the space inside (the transport already
  // trimmed leading and trailing whitespace).
  for (const char c : key) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b > 0x7E) {
      return bad_key(
          "Idempotency-Key holds a character that is not printable ASCII; send 1 to 255 printable "
          "ASCII characters (a UUID)");
    }
  }
  return std::string(key);
}

std::string request_digest(const nlohmann::json& body, std::string_view feature) {
  // nlohmann::json keeps object members sorted, so dump() is canonical.
  std::string canonical = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  canonical.push_back('\0');
  canonical.append(feature.data(), feature.size());
  return util::sha256_hex(canonical);
}

}  // namespace modelgw::idempotency
