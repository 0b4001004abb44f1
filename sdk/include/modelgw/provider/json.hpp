// Bounded JSON for provider plugins: parsing vendor bytes without exceptions
// and without letting a hostile depth reach the recursive serialiser, and
// reading members the way vendors write them.
// Header-only C++17; needs nlohmann-json (3.10 or later) and the C++ standard
// library.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace mgw::provider {

// ordered_json keeps members in the order they were written, so what goes
// out reads like what came in (and is no slower for objects this small).
using Json = nlohmann::ordered_json;

// Deepest nesting accepted from text the host did not check (vendor bodies,
// JSON a client wrapped in a string). nlohmann parses and frees without
// recursion but serialises recursively, so a hostile document must not reach
// dump().
inline constexpr std::size_t kMaxVendorDepth = 512;

// True when `text` nests arrays and objects at most `max_depth` deep. Scans
// bytes only (no parse), and returns at once for a text too short to be
// deeper, which makes the check free for typical stream events.
inline bool nesting_within(std::string_view text, std::size_t max_depth) noexcept {
  if (text.size() <= max_depth) {
    return true;  // each level needs at least one byte
  }
  std::size_t depth = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char c = *p++;
    if (c == '"') {
      // Skip the string; brackets inside it do not nest.
      while (p < end) {
        const char s = *p++;
        if (s == '\\') {
          ++p;
        } else if (s == '"') {
          break;
        }
      }
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return false;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

// Parses text the host has already checked (the client's body, a config
// block). A discarded value when it is not JSON; never throws a parse error.
inline Json parse_json(std::string_view text) {
  return Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
}

// Parses unchecked text. A discarded value when it is not JSON or nests
// deeper than `max_depth`; never throws a parse error.
inline Json parse_bounded(std::string_view text, std::size_t max_depth = kMaxVendorDepth) {
  if (!nesting_within(text, max_depth)) {
    return Json(Json::value_t::discarded);
  }
  return parse_json(text);
}

// Serialises. Invalid UTF-8 (which the parser never produces, but host
// strings might hold) is replaced rather than thrown.
inline std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `text` as a JSON string, quotes included, as dump(Json(text)) writes it.
// A name from configuration (a catalog alias) is plain printable ASCII:
// that is quoted as it is, without building a value to serialise.
inline std::string json_quoted(std::string_view text) {
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f || c == '"' || c == '\\') return dump(Json(text));
  }
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  out += text;
  out += '"';
  return out;
}

// The member `key` of `j`, or nullptr when `j` is not an object or has no
// such member. A JSON null member reads as absent too: in OpenAI's and the
// vendors' optional fields, null means "not set".
inline const Json* member(const Json& j, std::string_view key) {
  if (!j.is_object()) {
    return nullptr;
  }
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

// The string at `j[key]`, or an empty view when `j` is not an object or the
// member is absent or not a string. The view lives as long as `j`.
inline std::string_view string_member(const Json& j, std::string_view key) {
  const Json* m = member(j, key);
  return m != nullptr && m->is_string() ? std::string_view(m->get_ref<const std::string&>())
                                        : std::string_view{};
}

// A non-negative integer from any JSON number (vendors write token counts as
// integers, but a float must not make the gateway fail): negative → 0,
// beyond int64 → INT64_MAX, a float rounded. nullopt when `j` is not a number.
inline std::optional<int64_t> count_value(const Json& j) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (j.is_number_unsigned()) {
    const auto v = j.get<uint64_t>();
    return v > static_cast<uint64_t>(kMax) ? kMax : static_cast<int64_t>(v);
  }
  if (j.is_number_integer()) {
    const auto v = j.get<int64_t>();
    return v < 0 ? 0 : v;
  }
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (!(d > 0)) {
      return 0;  // negative, zero or NaN
    }
    // Comparing against 2^63 as a double keeps the conversion defined.
    return d >= 9.2e18 ? kMax : static_cast<int64_t>(std::llround(d));
  }
  return std::nullopt;
}

}  // namespace mgw::provider
