#include "importer/litellm_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace modelgw::importer {

YAML::Node child(const YAML::Node& node, std::string_view key) {
  if (node && node.IsMap()) {
    for (const auto& kv : node) {
      if (kv.first.IsScalar() && kv.first.Scalar() == key) return kv.second;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::optional<std::string> scalar_text(const YAML::Node& node) {
  if (!node || !node.IsScalar()) return std::nullopt;
  return node.Scalar();
}

std::optional<double> number_value(const YAML::Node& node) {
  const auto text = scalar_text(node);
  if (!text || text->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(*text, &used);
    if (used != text->size() || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<bool> bool_value(const YAML::Node& node) {
  auto text = scalar_text(node);
  if (!text) return std::nullopt;
  std::string t = *text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "true" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "no" || t == "off") return false;
  return std::nullopt;
}

std::optional<std::string> env_reference(const YAML::Node& node) {
  constexpr std::string_view kPrefix = "os.environ/";
  const auto text = scalar_text(node);
  if (!text || text->rfind(kPrefix, 0) != 0) return std::nullopt;
  return text->substr(kPrefix.size());
}

bool is_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); });
}

std::string env_stem(std::string_view text) {
  std::string out;
  for (char c : text) {
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "V_");
  return out;
}

bool is_credential_key(std::string_view key) {
  std::string k;
  for (char c : key) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (k == "database_url" || k == "redis_url" || k == "authorization" || k == "dsn") return true;
  std::vector<std::string> words;
  std::size_t start = 0;
  for (;;) {
    const auto end = k.find_first_of("_-.", start);
    words.push_back(k.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (words.back() == "key" || words.back() == "keys") return true;
  for (const auto& w : words) {
    if (w == "secret" || w == "password" || w == "passwd" || w == "token" || w == "credential" ||
        w == "credentials" || w == "webhook" || w == "apikey") {
      return true;
    }
  }
  return false;
}

std::int64_t seconds_to_ms(double seconds) {
  constexpr double kMaxMs = 24.0 * 3600 * 1000;
  return static_cast<std::int64_t>(
      std::clamp(std::llround(seconds * 1000.0), 1LL, static_cast<long long>(kMaxMs)));
}

std::optional<std::int64_t> duration_seconds(std::string_view text) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || n <= 0) return std::nullopt;
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (unit == "s") return n;
  if (unit == "m") return n * 60;
  if (unit == "h") return n * 3600;
  if (unit == "d") return n * 86400;
  if (unit == "w") return n * 7 * 86400;
  if (unit == "mo") return n * 30 * 86400;
  return std::nullopt;
}

void SecretBook::add(const std::string& value) {
  if (value.size() < 6) return;
  if (std::find(secrets_.begin(), secrets_.end(), value) == secrets_.end()) secrets_.push_back(value);
  // Longest first, so a secret containing another is replaced whole.
  std::sort(secrets_.begin(), secrets_.end(),
            [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

std::string SecretBook::variable_for(const std::string& value, const std::string& stem) {
  if (auto it = variable_of_.find(value); it != variable_of_.end()) return it->second;
  std::string name = stem;
  for (int n = 2; taken_.count(name); ++n) name = stem + "_" + std::to_string(n);
  taken_.insert(name);
  variable_of_[value] = name;
  return name;
}

std::string SecretBook::scrub(std::string text) const {
  for (const auto& s : secrets_) {
    for (auto at = text.find(s); at != std::string::npos; at = text.find(s, at)) {
      text.replace(at, s.size(), "[secret]");
    }
  }
  return text;
}

void SecretBook::note_reference(const std::string& variable, const std::string& setting) {
  references_.emplace(variable, setting);
  taken_.insert(variable);
}

}  // namespace modelgw::importer
