#include "config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>

#include "failure.h"

namespace mgw_sqlite {
namespace {

[[noreturn]] void bad(const std::string& key, std::string_view problem) {
  std::string message = key.empty() ? "storage.options" : "storage.options." + key;
  message.append(": ").append(problem);
  throw Failure(MGW_INVALID_ARGUMENT, message);
}

std::string parse_path(const nlohmann::json& options) {
  auto it = options.find("path");
  if (it == options.end() || !it->is_string()) bad("path", "required string");
  auto path = it->get<std::string>();
  if (path.empty()) bad("path", "must not be empty");
  // SQLite takes a NUL-terminated name: an embedded NUL would open another file.
  if (path.find('\0') != std::string::npos) bad("path", "must not contain NUL characters");
  return path;
}

int parse_busy_timeout(const nlohmann::json& options, int fallback) {
  auto it = options.find("busy_timeout_ms");
  if (it == options.end()) return fallback;
  constexpr auto kMax = std::numeric_limits<int>::max();  // sqlite3_busy_timeout takes an int
  if (it->is_number_unsigned() && it->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMax))
    return static_cast<int>(it->get<std::uint64_t>());
  if (it->is_number_integer() && it->get<std::int64_t>() >= 0 && it->get<std::int64_t>() <= kMax)
    return static_cast<int>(it->get<std::int64_t>());
  bad("busy_timeout_ms", "must be an integer from 0 to 2147483647");
}

}  // namespace

Config parse_config(std::string_view json) {
  // Parse without exceptions so a syntax error gets our wording.
  auto options = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (options.is_discarded()) bad("", "not valid JSON");
  if (!options.is_object()) bad("", "must be a JSON object");
  Config config;
  for (const auto& item : options.items()) {
    if (item.key() != "path" && item.key() != "busy_timeout_ms" && item.key() != "migrate")
      bad(item.key(), "unknown option");
  }
  if (auto it = options.find("migrate"); it != options.end()) {
    if (!it->is_boolean()) bad("migrate", "must be true or false");
    config.migrate = it->get<bool>();
  }
  config.path = parse_path(options);
  config.busy_timeout_ms = parse_busy_timeout(options, config.busy_timeout_ms);
  return config;
}

}  // namespace mgw_sqlite
