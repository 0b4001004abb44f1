#include "json_util.h"

#include <cmath>
#include <limits>

namespace mgw::gemini {

bool nesting_within(std::string_view text, std::size_t max_depth) noexcept {
  // Each level needs at least one byte, so short inputs cannot be too deep:
  // this makes the check free for typical stream events.
  if (text.size() <= max_depth) {
    return true;
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

Json parse_bounded(std::string_view text) {
  if (!nesting_within(text, kMaxDepth)) {
    return Json(Json::value_t::discarded);
  }
  return Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
}

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string_view string_member(const Json& j, std::string_view key) {
  const Json* m = member(j, key);
  if (m == nullptr || !m->is_string()) {
    return {};
  }
  return m->get_ref<const std::string&>();
}

const Json* member(const Json& j, std::string_view key) {
  if (!j.is_object()) {
    return nullptr;
  }
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return nullptr;
  }
  return &*it;
}

std::optional<int64_t> count_value(const Json& j) {
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
    // Comparing against 2^63 as a double keeps the conversion defined.
    if (!(d > 0)) {
      return 0;
    }
    return d >= 9.2e18 ? kMax : static_cast<int64_t>(std::llround(d));
  }
  return std::nullopt;
}

}  // namespace mgw::gemini
