#include "config/section_reader.h"

namespace modelgw::config {
namespace {
const nlohmann::json kNull = nullptr;
}

SectionReader::SectionReader(const nlohmann::json& value, std::string path)
    : value_(value), path_(std::move(path)) {
  if (!value_.is_null() && !value_.is_object()) throw ConfigError(path_ + ": must be a mapping");
}

bool SectionReader::has(const std::string& key) const {
  return value_.is_object() && value_.contains(key) && !value_.at(key).is_null();
}

const nlohmann::json& SectionReader::lookup(const std::string& key) {
  seen_.insert(key);
  if (!value_.is_object()) return kNull;
  auto it = value_.find(key);
  return it == value_.end() ? kNull : *it;
}

std::string SectionReader::string(const std::string& key, const std::string& fallback) {
  const auto& v = lookup(key);
  if (v.is_null()) return fallback;
  if (!v.is_string()) throw ConfigError(key_path(key) + ": must be a string");
  return v.get<std::string>();
}

std::string SectionReader::required_string(const std::string& key) {
  const auto& v = lookup(key);
  if (v.is_null()) throw ConfigError(key_path(key) + ": required");
  if (!v.is_string()) throw ConfigError(key_path(key) + ": must be a string");
  auto s = v.get<std::string>();
  if (s.empty()) throw ConfigError(key_path(key) + ": must not be empty");
  return s;
}

std::int64_t SectionReader::integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                                    std::int64_t max) {
  const auto& v = lookup(key);
  if (v.is_null()) return fallback;
  if (!v.is_number_integer()) {
    throw ConfigError(key_path(key) + ": must be an integer between " + std::to_string(min) + " and " +
                      std::to_string(max));
  }
  auto n = v.get<std::int64_t>();
  if (n < min || n > max) {
    throw ConfigError(key_path(key) + ": " + std::to_string(n) + " is out of range [" + std::to_string(min) +
                      ", " + std::to_string(max) + "]");
  }
  return n;
}

bool SectionReader::boolean(const std::string& key, bool fallback) {
  const auto& v = lookup(key);
  if (v.is_null()) return fallback;
  if (!v.is_boolean()) throw ConfigError(key_path(key) + ": must be true or false");
  return v.get<bool>();
}

std::vector<std::string> SectionReader::string_list(const std::string& key,
                                                    std::vector<std::string> fallback) {
  const auto& v = lookup(key);
  if (v.is_null()) return fallback;
  if (!v.is_array()) throw ConfigError(key_path(key) + ": must be a list of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get_ref<const std::string&>().empty()) {
      throw ConfigError(key_path(key) + "[" + std::to_string(i) + "]: must be a non-empty string");
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

const nlohmann::json& SectionReader::object(const std::string& key) {
  const auto& v = lookup(key);
  if (!v.is_null() && !v.is_object()) throw ConfigError(key_path(key) + ": must be a mapping");
  return v;
}

const nlohmann::json& SectionReader::raw(const std::string& key) {
  return lookup(key);
}

void SectionReader::reject_unknown_keys() const {
  if (!value_.is_object()) return;
  for (const auto& [key, _] : value_.items()) {
    if (!seen_.count(key)) throw ConfigError(key_path(key) + ": unknown key");
  }
}

}  // namespace modelgw::config
