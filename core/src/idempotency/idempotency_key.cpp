#include "idempotency/idempotency_key.h"

#include "util/ascii.h"
#include "util/json_text.h"
#include "util/sha256_hex.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace modelgw::idempotency {
namespace {

using util::iequals;

errors::ApiError bad_key(std::string message) {
  return errors::bad_request("invalid_parameter", std::move(message), "Idempotency-Key");
}

// The JSON text of `v` with members sorted (nlohmann::json keeps them so) and
// numbers by value: 1, 1.0, 1e0 and 10e-1 are one number, as a JSON parser
// reads them, so they are one body (README: bodies compare as JSON). Other
// values print as dump() does, so digests of bodies without such numbers
// are what they always were.
void append_canonical(const nlohmann::json& v, std::string& out) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out.push_back(',');
        first = false;
        util::append_json_string(out, it.key());  // dump()'s text for a parsed (valid UTF-8) key
        out.push_back(':');
        append_canonical(it.value(), out);
      }
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      out.push_back('[');
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out.push_back(',');
        append_canonical(v[i], out);
      }
      out.push_back(']');
      return;
    }
    case nlohmann::json::value_t::number_float: {
      const double d = v.get<double>();
      // An integral value within 2^63 prints as the integer it equals.
      if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18) {
        out += std::to_string(static_cast<std::int64_t>(d));
        return;
      }
      out += v.dump();
      return;
    }
    case nlohmann::json::value_t::string:
      util::append_json_string(out, v.get_ref<const std::string&>());
      return;
    default:
      out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
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
  append_canonical(body, canonical);
  canonical.push_back('\0');
  canonical.append(feature.data(), feature.size());
  std::string digest = util::sha256_hex(canonical);
  if (canonical.capacity() > kKeptCapacity) std::string().swap(canonical);
  return digest;
}

}  // namespace modelgw::idempotency
