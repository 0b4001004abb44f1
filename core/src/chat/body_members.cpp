#include "chat/body_members.h"

#include <modelgw/provider/json_scan.hpp>
#include <modelgw/sdk.hpp>

#include <nlohmann/json.hpp>

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
    i = mgw::provider::json_scan::plain_run_end(s, i);
    if (i >= s.size()) break;
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

bool opens_object(std::string_view text) {
  const std::size_t open = text.find_first_not_of(" \t\r\n");
  return open != std::string_view::npos && text[open] == '{';
}

bool distinct_names(const std::vector<mgw_json_member>& members) {
  if (members.size() <= 32) {
    for (std::size_t a = 0; a < members.size(); ++a) {
      for (std::size_t b = a + 1; b < members.size(); ++b) {
        if (mgw::view(members[a].name) == mgw::view(members[b].name)) return false;
      }
    }
    return true;
  }
  std::unordered_set<std::string_view> seen;
  for (const auto& m : members) {
    if (!seen.insert(mgw::view(m.name)).second) return false;
  }
  return true;
}

std::optional<std::vector<mgw_json_member>> index_members(std::string_view s) {
  // Not reserved ahead: the chat attempt keeps its index for the whole
  // upstream call (streams included), where each unused slot is 32 bytes.
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
  if (!distinct_names(out)) return std::nullopt;
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

namespace modelgw::chat {
namespace {

std::size_t skip_spaces(std::string_view s, std::size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// The value of member `key` in the object starting at `i`: its start, or npos
// when absent, repeated, or behind an escaped key.
std::size_t member_value(std::string_view s, std::size_t i, std::string_view key) {
  if (i >= s.size() || s[i] != '{') return std::string_view::npos;
  std::size_t found = std::string_view::npos;
  ++i;
  // Bounded: every turn consumes a key and its value, or a separator.
  while (true) {
    i = skip_spaces(s, i);
    if (i >= s.size()) return std::string_view::npos;
    if (s[i] == '}') return found;
    if (s[i] == ',') {
      ++i;
      continue;
    }
    if (s[i] != '"') return std::string_view::npos;
    const std::size_t key_end = skip_string(s, i) - 1;
    const std::string_view name = s.substr(i + 1, key_end - i - 1);
    if (name.find('\\') != std::string_view::npos) return std::string_view::npos;
    i = skip_spaces(s, key_end + 1);
    if (i >= s.size() || s[i] != ':') return std::string_view::npos;
    i = skip_spaces(s, i + 1);
    if (name == key) {
      if (found != std::string_view::npos) return std::string_view::npos;  // twice: which one is meant?
      found = i;
    }
    i = skip_value(s, i);
  }
}

// Element `index` of the array starting at `i`: its start, or npos.
std::size_t element_value(std::string_view s, std::size_t i, std::size_t index) {
  if (i >= s.size() || s[i] != '[') return std::string_view::npos;
  ++i;
  std::size_t at = 0;
  while (true) {
    i = skip_spaces(s, i);
    if (i >= s.size() || s[i] == ']') return std::string_view::npos;
    if (s[i] == ',') {
      ++i;
      continue;
    }
    if (at == index) return i;
    ++at;
    i = skip_value(s, i);
  }
}

}  // namespace

std::optional<std::pair<std::size_t, std::size_t>> locate_value(std::string_view text, const JsonPath& path) {
  std::size_t i = skip_spaces(text, 0);
  for (const auto& step : path) {
    i = std::holds_alternative<std::string>(step) ? member_value(text, i, std::get<std::string>(step))
                                                  : element_value(text, i, std::get<std::size_t>(step));
    if (i == std::string_view::npos) return std::nullopt;
  }
  return std::pair{i, skip_value(text, i)};
}

std::optional<std::vector<std::pair<std::size_t, std::size_t>>> array_elements(std::string_view text,
                                                                               std::size_t at) {
  if (at >= text.size() || text[at] != '[') return std::nullopt;
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t i = at + 1;
  // Bounded: every turn consumes an element or a separator.
  while (true) {
    i = skip_spaces(text, i);
    if (i >= text.size()) return std::nullopt;
    if (text[i] == ']') return out;
    if (text[i] == ',') {
      ++i;
      continue;
    }
    const std::size_t end = skip_value(text, i);
    if (end <= i) return std::nullopt;
    out.emplace_back(i, end);
    i = end;
  }
}

std::optional<std::string> replace_strings(
    std::string_view text, const std::vector<std::pair<JsonPath, std::string>>& replacements) {
  struct Edit {
    std::size_t begin, end;
    const std::string* with;
  };
  std::vector<Edit> edits;
  edits.reserve(replacements.size());
  for (const auto& [path, with] : replacements) {
    const auto at = locate_value(text, path);
    if (!at || at->first >= text.size() || text[at->first] != '"') return std::nullopt;
    edits.push_back(Edit{at->first, at->second, &with});
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(text.size() + 64 * edits.size());
  std::size_t copied = 0;
  for (const Edit& e : edits) {
    if (e.begin < copied) return std::nullopt;  // overlapping: not two distinct strings
    out.append(text.substr(copied, e.begin - copied));
    out += nlohmann::json(*e.with).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    copied = e.end;
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace modelgw::chat

namespace modelgw::chat {

std::optional<std::string> with_member(std::string_view object, std::string_view name,
                                       std::string_view value_json) {
  const auto members = index_members(object);
  if (!members) return std::nullopt;
  std::string out;
  out.reserve(object.size() + name.size() + value_json.size() + 4);
  for (const auto& m : *members) {
    if (std::string_view(m.name.ptr, m.name.len) != name) continue;
    const auto begin = static_cast<std::size_t>(m.value.ptr - object.data());
    out.append(object.substr(0, begin)).append(value_json).append(object.substr(begin + m.value.len));
    return out;
  }
  return with_new_member(object, name, value_json);
}

std::optional<std::string> with_new_member(std::string_view object, std::string_view name,
                                           std::string_view value_json) {
  const std::size_t brace = object.find('{');
  if (brace == std::string_view::npos) return std::nullopt;
  // Whether the object has members: its first byte after '{' that is not
  // JSON whitespace is not '}'.
  const std::size_t next = object.find_first_not_of(" \t\r\n", brace + 1);
  const bool empty = next == std::string_view::npos || object[next] == '}';
  std::string out;
  out.reserve(object.size() + name.size() + value_json.size() + 4);
  out.append(object.substr(0, brace + 1)).append("\"").append(name).append("\":").append(value_json);
  if (!empty) out.append(",");
  out.append(object.substr(brace + 1));
  return out;
}

}  // namespace modelgw::chat
