#include "json_util.h"

namespace mgw::openai {

bool nesting_within(std::string_view text, std::size_t max_depth) noexcept {
  // Each level needs at least one byte, so short inputs cannot be too deep:
  // this makes the check free for typical stream chunks.
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

Json parse_vendor_json(std::string_view text) {
  if (!nesting_within(text, kMaxVendorDepth)) {
    return Json(Json::value_t::discarded);
  }
  return Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
}

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string_view string_member(const Json& j, std::string_view key) {
  if (!j.is_object()) {
    return {};
  }
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) {
    return {};
  }
  return it->get_ref<const std::string&>();
}

}  // namespace mgw::openai
