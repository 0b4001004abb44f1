#include "config.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>

#include "failure.h"

namespace mgw_pg {
namespace {

[[noreturn]] void bad(const std::string& key, std::string_view problem) {
  std::string message = key.empty() ? "storage.options" : "storage.options." + key;
  message.append(": ").append(problem);
  throw Failure(MGW_INVALID_ARGUMENT, message);
}

constexpr std::array<std::string_view, 12> kKnown{"dsn",
                                                  "schema",
                                                  "pool_size",
                                                  "acquire_timeout_ms",
                                                  "connect_timeout_ms",
                                                  "statement_timeout_ms",
                                                  "sslmode",
                                                  "sslrootcert",
                                                  "sslcert",
                                                  "sslkey",
                                                  "application_name",
                                                  "migrate"};

bool known(std::string_view key) {
  for (auto k : kKnown) {
    if (k == key) return true;
  }
  return false;
}

// A string member; NUL bytes are refused because libpq takes C strings.
std::optional<std::string> string_member(const nlohmann::json& options, const std::string& key) {
  auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  if (!it->is_string()) bad(key, "must be a string");
  auto value = it->get<std::string>();
  if (value.find('\0') != std::string::npos) bad(key, "must not contain NUL characters");
  return value;
}

std::optional<int> int_member(const nlohmann::json& options, const std::string& key, std::int64_t min,
                              std::int64_t max) {
  auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  const std::string range = "must be an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (it->is_number_unsigned()) {
    if (it->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) bad(key, range);
    auto v = static_cast<std::int64_t>(it->get<std::uint64_t>());
    if (v < min) bad(key, range);
    return static_cast<int>(v);
  }
  if (it->is_number_integer()) {
    auto v = it->get<std::int64_t>();
    if (v < min || v > max) bad(key, range);
    return static_cast<int>(v);
  }
  bad(key, range);
}

bool valid_schema(std::string_view s) {
  auto head = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto tail = [&](char c) { return head(c) || (c >= '0' && c <= '9'); };
  if (s.empty() || s.size() > 63 || !head(s.front())) return false;
  for (char c : s.substr(1)) {
    if (!tail(c)) return false;
  }
  return true;
}

}  // namespace

Config parse_config(std::string_view json) {
  // Parse without exceptions so a syntax error gets our wording.
  auto options = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (options.is_discarded()) bad("", "not valid JSON");
  if (!options.is_object()) bad("", "must be a JSON object");
  for (const auto& item : options.items()) {
    if (!known(item.key())) bad(item.key(), "unknown option");
  }
  Config config;

  auto dsn = string_member(options, "dsn");
  if (!dsn) bad("dsn", "required string (a libpq connection string or URI)");
  if (dsn->empty()) bad("dsn", "must not be empty");
  config.dsn = std::move(*dsn);

  if (auto schema = string_member(options, "schema")) {
    if (!valid_schema(*schema))
      bad("schema", "must be 1 to 63 characters: a letter or _, then letters, digits or _");
    config.schema = std::move(*schema);
  }
  if (auto v = int_member(options, "pool_size", 1, 256)) config.pool_size = *v;
  if (auto v = int_member(options, "acquire_timeout_ms", 0, 3'600'000)) config.acquire_timeout_ms = *v;
  if (auto v = int_member(options, "connect_timeout_ms", 1, 3'600'000)) {
    config.connect_timeout_ms = *v;
    config.connect_timeout_given = true;
  }
  if (auto v = int_member(options, "statement_timeout_ms", 0, 2'147'483'647))
    config.statement_timeout_ms = *v;

  if (auto mode = string_member(options, "sslmode")) {
    constexpr std::array<std::string_view, 6> kModes{"disable", "allow",     "prefer",
                                                     "require", "verify-ca", "verify-full"};
    bool ok = false;
    for (auto m : kModes) ok = ok || m == *mode;
    if (!ok) bad("sslmode", "must be disable, allow, prefer, require, verify-ca or verify-full");
    config.sslmode = std::move(*mode);
  }
  for (auto [key, slot] : {std::pair{"sslrootcert", &config.sslrootcert},
                           std::pair{"sslcert", &config.sslcert}, std::pair{"sslkey", &config.sslkey}}) {
    if (auto path = string_member(options, key)) {
      if (path->empty()) bad(key, "must not be empty");
      *slot = std::move(*path);
    }
  }
  if (auto name = string_member(options, "application_name")) {
    config.application_name = std::move(*name);
    config.application_name_given = true;
  }
  if (auto it = options.find("migrate"); it != options.end()) {
    if (!it->is_boolean()) bad("migrate", "must be true or false");
    config.migrate = it->get<bool>();
  }
  return config;
}

}  // namespace mgw_pg
