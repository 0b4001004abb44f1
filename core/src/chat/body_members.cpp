#include "chat/body_members.h"

#include <modelgw/sdk.hpp>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>

namespace modelgw::chat {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The position after the string that starts at `i` (its opening quote).
std::size_t skip_string(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return s.size();
}

// The position after the value that starts at `i`.
std::size_t skip_value(std::string_view s, std::size_t i) {
  if (i >= s.size()) return s.size();
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    std::size_t depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = skip_string(s, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return s.size();
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_space(s[i])) ++i;
  return i;
}

}  // namespace

std::optional<std::vector<mgw_json_member>> index_members(std::string_view s) {
  std::vector<mgw_json_member> out;
  std::size_t i = 0;
  auto skip_ws = [&] {
    while (i < s.size() && is_space(s[i])) ++i;
  };
  skip_ws();
  if (i >= s.size() || s[i] != '{') return std::nullopt;
  ++i;
  // Bounded: every turn consumes at least the key's quotes.
  while (true) {
    skip_ws();
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '}') break;
    if (s[i] == ',') {
      ++i;
      continue;
    }
    if (s[i] != '"') return std::nullopt;
    const std::size_t key_start = i + 1;
    const std::size_t key_end = skip_string(s, i) - 1;
    const std::string_view key = s.substr(key_start, key_end - key_start);
    if (key.find('\\') != std::string_view::npos) return std::nullopt;
    i = key_end + 1;
    skip_ws();
    if (i >= s.size() || s[i] != ':') return std::nullopt;
    ++i;
    skip_ws();
    const std::size_t value_start = i;
    i = skip_value(s, i);
    out.push_back(mgw_json_member{mgw::str(key), mgw::str(s.substr(value_start, i - value_start))});
  }
  // Distinct keys: a small body is checked pairwise, a large one with a set.
  if (out.size() <= 32) {
    for (std::size_t a = 0; a < out.size(); ++a) {
      for (std::size_t b = a + 1; b < out.size(); ++b) {
        if (mgw::view(out[a].name) == mgw::view(out[b].name)) return std::nullopt;
      }
    }
  } else {
    std::unordered_set<std::string_view> seen;
    for (const auto& m : out) {
      if (!seen.insert(mgw::view(m.name)).second) return std::nullopt;
    }
  }
  return out;
}

}  // namespace modelgw::chat

namespace modelgw::chat {

std::string without_members(const std::vector<mgw_json_member>& members,
                            const std::vector<std::string>& drop) {
  std::size_t size = 2;
  for (const auto& m : members) size += m.name.len + m.value.len + 4;
  std::string out;
  out.reserve(size);
  out += '{';
  for (const auto& m : members) {
    const std::string_view name(m.name.ptr, m.name.len);
    if (std::find(drop.begin(), drop.end(), name) != drop.end()) continue;
    if (out.size() > 1) out += ',';
    out += '"';
    out += name;  // indexed keys have no escapes: written as they were
    out += "\":";
    out.append(m.value.ptr, m.value.len);
  }
  out += '}';
  return out;
}

}  // namespace modelgw::chat
