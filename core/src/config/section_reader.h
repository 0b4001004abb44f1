// Typed, path-aware reads from one JSON object of the configuration, so every
// error names the exact key ("server.max_body_bytes: must be an integer ...").
#pragma once

#include "config/config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace modelgw::config {

class SectionReader {
 public:
  // `value` may be null (an absent section reads as empty).
  SectionReader(const nlohmann::json& value, std::string path);

  const std::string& path() const { return path_; }
  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  bool has(const std::string& key) const;

  std::string string(const std::string& key, const std::string& fallback);
  std::string required_string(const std::string& key);
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max);
  bool boolean(const std::string& key, bool fallback);
  // A sequence of non-empty strings; `fallback` when absent.
  std::vector<std::string> string_list(const std::string& key, std::vector<std::string> fallback);
  const nlohmann::json& object(const std::string& key);  // null when absent
  const nlohmann::json& raw(const std::string& key);     // any type; null when absent

  // Fails on any key that no read asked for (a typo should stop start-up).
  void reject_unknown_keys() const;

 private:
  const nlohmann::json& lookup(const std::string& key);

  const nlohmann::json& value_;
  std::string path_;
  std::set<std::string> seen_;
};

}  // namespace modelgw::config
