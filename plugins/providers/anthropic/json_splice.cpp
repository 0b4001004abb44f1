#include "json_splice.h"

namespace mgw::anthropic {

namespace {

bool is_json_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && is_json_space(s[i])) {
    ++i;
  }
  return i;
}

// From the opening quote at `i`: the index of the closing quote, or npos.
std::size_t string_end(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;  // the escaped byte is never the closing quote
    } else if (s[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

// From the first byte of a value at `i`: the index just past it (the ',' or
// '}' that follows it at depth 0, or the end), or npos when a string or
// container is left open.
std::size_t value_end(std::string_view s, std::size_t i) {
  std::size_t depth = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      i = string_end(s, i);
      if (i == std::string_view::npos) {
        return i;
      }
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) {
        return i;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return depth == 0 ? i : std::string_view::npos;
}

}  // namespace

std::optional<std::vector<RawMember>> top_level_members(std::string_view s) {
  std::vector<RawMember> out;
  std::size_t i = skip_space(s, 0);
  if (i >= s.size() || s[i] != '{') {
    return std::nullopt;
  }
  i = skip_space(s, i + 1);
  if (i < s.size() && s[i] == '}') {
    return out;
  }
  // Each round consumes at least a key and a colon, so it ends.
  while (i < s.size()) {
    if (s[i] != '"') {
      return std::nullopt;
    }
    const std::size_t close = string_end(s, i);
    if (close == std::string_view::npos) {
      return std::nullopt;
    }
    const std::string_view name = s.substr(i + 1, close - i - 1);
    i = skip_space(s, close + 1);
    if (i >= s.size() || s[i] != ':') {
      return std::nullopt;
    }
    const std::size_t start = skip_space(s, i + 1);
    const std::size_t end = value_end(s, start);
    if (end == std::string_view::npos || end >= s.size()) {
      return std::nullopt;
    }
    std::size_t last = end;
    while (last > start && is_json_space(s[last - 1])) {
      --last;
    }
    if (last == start) {
      return std::nullopt;
    }
    out.push_back(RawMember{name, s.substr(start, last - start)});
    if (s[end] == '}') {
      return out;
    }
    i = skip_space(s, end + 1);  // past the comma
  }
  return std::nullopt;
}

void append_raw_member(std::string& out, std::string_view name, std::string_view value) {
  if (out.size() > 1) {
    out += ',';
  }
  out += '"';
  out += name;
  out += "\":";
  out += value;
}

}  // namespace mgw::anthropic
