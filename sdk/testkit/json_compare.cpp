#include "json_compare.h"

namespace mgw::testkit {
namespace {

// Byte scan, strings skipped: true when brackets nest deeper than `max`.
bool too_deep(std::string_view text, int max) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

std::optional<Json> parse_json(std::string_view text, std::string* why) {
  if (too_deep(text, kMaxJsonDepth)) {
    if (why != nullptr) *why = "nested deeper than " + std::to_string(kMaxJsonDepth);
    return std::nullopt;
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    if (why != nullptr) *why = e.what();
    return std::nullopt;
  }
}

std::string short_dump(const Json& j, std::size_t max) {
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

std::string json_difference(const Json& expected, const Json& actual) {
  if (expected == actual) return {};
  return short_dump(Json::diff(expected, actual), 600);
}

}  // namespace mgw::testkit
