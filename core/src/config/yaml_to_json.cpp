#include "config/yaml_to_json.h"

#include "config/config.h"

#include <charconv>
#include <cstdlib>

namespace modelgw::config {
namespace {

nlohmann::json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::int64_t i = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
  if (ec == std::errc() && end == s.data() + s.size()) return i;
  char* fend = nullptr;
  double d = std::strtod(s.c_str(), &fend);
  if (fend == s.c_str() + s.size() && (s.find_first_of(".eE") != std::string::npos)) return d;
  return s;
}

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node, const std::string& key_path, const EnvLookup& lookup,
                            std::vector<std::string>& unset) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar: {
      std::string value = substitute_env(node.Scalar(), key_path, lookup, unset);
      if (node.Tag() == "!") return value;  // quoted: always a string
      return plain_scalar(value);
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      std::size_t i = 0;
      for (const auto& item : node) {
        arr.push_back(yaml_to_json(item, key_path + "[" + std::to_string(i++) + "]", lookup, unset));
      }
      return arr;
    }
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) throw ConfigError(key_path + ": map keys must be plain strings");
        const std::string& key = kv.first.Scalar();
        if (obj.contains(key)) throw ConfigError(child_path(key_path, key) + ": duplicate key");
        obj[key] = yaml_to_json(kv.second, child_path(key_path, key), lookup, unset);
      }
      return obj;
    }
  }
  return nullptr;
}

}  // namespace modelgw::config
