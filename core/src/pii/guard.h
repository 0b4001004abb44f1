// The PII step of a chat request: every string the request sends upstream
// (request_texts.h says which) is scanned, allowed values are dropped, and
// the tenant's mode plugin decides on the rest (reject, replace, or pass),
// recording what it saw. Only categories and counts leave this step; values never do.
#pragma once

#include "errors/api_error.h"
#include "pii/clean_text_cache.h"
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
#include <string_view>
#include <unordered_set>
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

// The texts of a request in which the detector found nothing at all, so
// that a second inspection of the same request does not scan them again: a
// door's native request repeats the texts of the chat request it was
// translated to, and both are inspected (pii_stage.cpp, count_tokens_chain
// .cpp). Nothing a policy decides is kept (an allowed value is a finding),
// so the two inspections may run under different policies. It holds views:
// the document they point into must outlive the second inspection, and
// those texts must not change in between (a clean text is never masked, so
// an inspection's own masking does not change them).
class CleanTexts {
 public:
  bool contains(std::string_view text) const { return text.size() >= kMinBytes && texts_.contains(text); }
  void add(std::string_view text) {
    if (text.size() >= kMinBytes) texts_.insert(text);
  }

 private:
  // A shorter text costs less to scan than to hash and keep.
  static constexpr std::size_t kMinBytes = 32;
  std::unordered_set<std::string_view> texts_;
};

// What an inspection may remember, and of whom.
struct ScanMemory {
  // Not 0: the tenant's texts the detector found nothing in are kept across
  // requests (clean_text_cache.h) and not scanned when sent again.
  std::int64_t tenant_id = 0;
  // This request's texts found clean: one it holds is passed without a scan,
  // and each one scanned clean is added.
  CleanTexts* request = nullptr;
};

class Guard {
 public:
  // `modes` are the loaded mode plugins by name; both outlive the guard.
  Guard(const Detector& detector, const std::map<std::string, std::unique_ptr<plugins::PiiMode>>& modes)
      : detector_(detector), modes_(modes) {}

  // Applies `policy` to `request` (a checked chat body), replacing text in
  // place when the mode masks. Throws plugins::PluginError when a mode plugin
  // fails (the request must then not go upstream).
  Verdict inspect(nlohmann::json& request, const Policy& policy, ScanMemory memory = {}) const;

  // Lookups that found a text in the cross-request memory.
  std::uint64_t remembered() const { return across_requests_.hits(); }

 private:
  const Detector& detector_;
  const std::map<std::string, std::unique_ptr<plugins::PiiMode>>& modes_;
  mutable CleanTextCache across_requests_;
};

}  // namespace modelgw::pii
