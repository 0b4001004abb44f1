// The PII step of a chat request: every string the request sends upstream
// (request_texts.h says which) is scanned, allowed values are dropped, and
// the tenant's mode plugin decides on the rest (reject, replace, or pass),
// recording what it saw. Only categories and counts leave this step; values never do.
#pragma once

#include "errors/api_error.h"
#include "pii/detector.h"
#include "pii/policy.h"
#include "plugins/pii_mode.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace modelgw::pii {

struct Verdict {
  std::array<std::uint32_t, kCategoryCount> counts{};  // recorded findings, by category
  std::string_view action;                             // "", "blocked", "masked" or "flagged"
  bool changed = false;                                // text in the request was replaced
  // Each replaced string: its path (member names and array indexes from the
  // root) and its new text, so the body can be edited where it is written.
  std::vector<std::pair<std::vector<std::variant<std::string, std::size_t>>, std::string>> replacements;
  std::optional<errors::ApiError> rejection;  // 422 pii_detected

  bool any() const { return !action.empty(); }
  // {"email":2,"payment_card":1}; empty when nothing was recorded.
  std::string findings_json() const;
  // "email=2,payment_card=1" for the log line; "-" when nothing.
  std::string summary() const;
};

class Guard {
 public:
  // `modes` are the loaded mode plugins by name; both outlive the guard.
  Guard(const Detector& detector, const std::map<std::string, std::unique_ptr<plugins::PiiMode>>& modes)
      : detector_(detector), modes_(modes) {}

  // Applies `policy` to `request` (a checked chat body), replacing text in
  // place when the mode masks. Throws plugins::PluginError when a mode plugin
  // fails (the request must then not go upstream).
  Verdict inspect(nlohmann::json& request, const Policy& policy) const;

 private:
  const Detector& detector_;
  const std::map<std::string, std::unique_ptr<plugins::PiiMode>>& modes_;
};

}  // namespace modelgw::pii
