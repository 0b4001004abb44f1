#include "idempotency/idempotency_key.h"

#include "util/ascii.h"
#include "util/json_write.h"
#include "util/sha256_hex.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace modelgw::idempotency {
namespace {

using util::iequals;

errors::ApiError bad_key(std::string message) {
  return errors::bad_request("invalid_parameter", std::move(message), "Idempotency-Key");
}

}  // namespace

std::variant<std::monostate, std::string, errors::ApiError> read_key(const http::Request& request) {
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
  // Each event loop reuses one buffer for the text it hashes (nothing here
  // suspends): a keyed request's body is not copied into a fresh string
  // grown piece by piece. One that grew past kKeptCapacity is let go.
  constexpr std::size_t kKeptCapacity = 64 * 1024;
  thread_local std::string canonical;
  canonical.clear();
  // Members sorted (nlohmann::json keeps them so) and numbers by value: 1,
  // 1.0, 1e0 and 10e-1 are one number, as a JSON parser reads them, so they
  // are one body (README: bodies compare as JSON). Other values are written
  // as dump() writes them, so digests of bodies without such numbers are
  // what they always were.
  util::append_json(canonical, body, util::FloatForm::integral_as_integer);
  canonical.push_back('\0');
  canonical.append(feature.data(), feature.size());
  std::string digest = util::sha256_hex(canonical);
  if (canonical.capacity() > kKeptCapacity) std::string().swap(canonical);
  return digest;
}

}  // namespace modelgw::idempotency
