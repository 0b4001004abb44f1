#include "config/env_substitution.h"

#include "config/config.h"

#include <cstdlib>

namespace modelgw::config {

std::optional<std::string> process_env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

namespace {
bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return false;
  }
  return !(name.front() >= '0' && name.front() <= '9');
}
}  // namespace

std::string substitute_env(std::string_view value, const std::string& key_path, const EnvLookup& lookup,
                           std::vector<std::string>& unset) {
  std::string out;
  out.reserve(value.size());
  std::size_t i = 0;
  while (i < value.size()) {
    if (value.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (value.compare(i, 2, "${") != 0) {
      out.push_back(value[i++]);
      continue;
    }
    std::size_t close = value.find('}', i + 2);
    if (close == std::string_view::npos) {
      throw ConfigError(key_path + ": unterminated ${...} reference");
    }
    std::string_view inner = value.substr(i + 2, close - i - 2);
    std::optional<std::string_view> fallback;
    if (auto dash = inner.find(":-"); dash != std::string_view::npos) {
      fallback = inner.substr(dash + 2);
      inner = inner.substr(0, dash);
    }
    if (!valid_name(inner)) {
      throw ConfigError(key_path + ": '${" + std::string(inner) +
                        "}' is not a valid environment variable name");
    }
    std::optional<std::string> got = lookup(std::string(inner));
    if (got && !got->empty()) {
      out += *got;
    } else if (fallback) {
      out += *fallback;
    } else {
      unset.emplace_back(inner);
    }
    i = close + 1;
  }
  return out;
}

}  // namespace modelgw::config
