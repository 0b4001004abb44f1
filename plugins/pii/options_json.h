// Reading a PII mode's options object, shared by the three modes' sources
// (header-only: each mode stays one self-contained shared object).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mgw::pii {

// The options as a JSON object; nullopt with `problem` set when they are not one.
inline std::optional<nlohmann::json> options_object(std::string_view json, std::string& problem) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    problem = "the options must be a JSON object";
    return std::nullopt;
  }
  return j;
}

// An option's name as it may be shown: JSON-quoted, invalid UTF-8 replaced.
inline std::string quoted_option(const std::string& name) {
  return nlohmann::json(name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// For a mode that takes no options: true for an empty object, else false with
// `problem` naming the first option given (never its value).
inline bool no_options(std::string_view json, std::string_view mode, std::string& problem) {
  const auto j = options_object(json, problem);
  if (!j) return false;
  if (j->empty()) return true;
  problem = "unknown option " + quoted_option(j->begin().key()) + " (the " + std::string(mode) +
            " mode takes none)";
  return false;
}

}  // namespace mgw::pii
