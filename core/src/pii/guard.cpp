#include "pii/guard.h"

#include <algorithm>

#include "pii/normalise.h"
#include "pii/request_texts.h"
#include "plugins/callback_guard.h"
#include "plugins/plugin_error.h"

#include <modelgw/sdk.hpp>

#include <vector>

namespace modelgw::pii {
namespace {

// What a mode plugin said about one piece of text, gathered through the sink.
struct Decision {
  std::array<std::uint32_t, kCategoryCount> counts{};
  bool rejected = false;
  std::string reason;
  std::optional<std::string> replacement;
  // The callbacks never unwind into the plugin (plugins/callback_guard.h); a
  // failure here fails the request after on_pii_apply returns.
  plugins::CallbackGuard guard;

  static bool valid(mgw_str s) { return s.ptr != nullptr || s.len == 0; }
  static void reject(void* d, mgw_str reason) noexcept {
    auto* self = static_cast<Decision*>(d);
    if (!valid(reason)) return self->guard.fail();
    self->guard.run([&] {
      self->rejected = true;
      self->reason.assign(mgw::view(reason));
    });
  }
  static void replace(void* d, mgw_str text) noexcept {
    auto* self = static_cast<Decision*>(d);
    if (!valid(text)) return self->guard.fail();
    self->guard.run([&] { self->replacement.emplace(mgw::view(text)); });
  }
  static void record(void* d, const mgw_pii_finding* f) noexcept {
    auto* self = static_cast<Decision*>(d);
    if (f == nullptr || !valid(f->category)) return;
    self->guard.run([&] {
      // A category the host does not know is ignored, never echoed.
      if (auto c = category_from_name(mgw::view(f->category))) ++self->counts[static_cast<std::size_t>(*c)];
    });
  }
};

// The client's message names the categories the policy blocks, never a value.
// A plugin's reason is used only when it is a plain list of category names.
std::string blocked_categories(const Decision& d, const std::vector<mgw_pii_finding>& findings) {
  bool plain = !d.reason.empty() && d.reason.size() <= 256;
  for (char c : d.reason) plain = plain && ((c >= 'a' && c <= 'z') || c == '_' || c == ',');
  if (plain) {
    std::string out;
    for (char c : d.reason) out += c == ',' ? std::string(", ") : std::string(1, c);
    return out;
  }
  std::string out;
  CategorySet seen;
  for (const auto& f : findings) {
    auto c = category_from_name(mgw::view(f.category));
    if (!f.critical || !c || seen.contains(*c)) continue;
    seen.add(*c);
    if (!out.empty()) out += ", ";
    out += name(*c);
  }
  return out.empty() ? std::string("personal data") : out;
}

}  // namespace

std::string Verdict::findings_json() const {
  std::string out;
  for (Category c : kAllCategories) {
    const auto n = counts[static_cast<std::size_t>(c)];
    if (n == 0) continue;
    out += out.empty() ? "{" : ",";
    out += "\"" + std::string(name(c)) + "\":" + std::to_string(n);
  }
  return out.empty() ? out : out + "}";
}

std::string Verdict::summary() const {
  std::string out;
  for (Category c : kAllCategories) {
    const auto n = counts[static_cast<std::size_t>(c)];
    if (n == 0) continue;
    if (!out.empty()) out += ",";
    out += std::string(name(c)) + "=" + std::to_string(n);
  }
  return out.empty() ? "-" : out;
}

Verdict Guard::inspect(nlohmann::json& request, const Policy& policy, ScanMemory memory) const {
  Verdict verdict;
  if (policy.mode == kModeOff) return verdict;
  auto mode_it = modes_.find(policy.mode);
  if (mode_it == modes_.end()) throw plugins::PluginError("PII mode '" + policy.mode + "' is not loaded");
  const plugins::PiiMode& mode = *mode_it->second;

  std::optional<plugins::PiiMode::Scope>
      scope;  // opened at the first finding: clean requests never call the plugin
  std::vector<Finding> found;
  std::vector<mgw_pii_finding> findings;
  bool recorded = false;
  for_each_request_text(request, [&](const TextRef& ref) {
    if (verdict.rejection) return;
    const auto& text = ref.node->get_ref<const std::string&>();
    CleanTexts* const clean = memory.request;
    if (clean != nullptr && clean->contains(text)) return;
    // Across requests (clean_text_cache.h): a text whose hint was noted is
    // hashed, and one whose digest is kept was found clean before.
    std::optional<CleanTextCache::Digest> digest;
    std::uint64_t hint = 0;
    if (memory.tenant_id != 0 && text.size() >= CleanTextCache::kMinBytes) {
      hint = across_requests_.hint(memory.tenant_id, text);
      if (across_requests_.seen(hint)) {
        digest = across_requests_.digest(memory.tenant_id, text);
        if (across_requests_.contains(*digest)) {
          if (clean != nullptr) clean->add(text);
          return;
        }
      }
    }
    found.clear();
    detector_.scan(text, found);
    if (found.empty()) {
      if (clean != nullptr) clean->add(text);
      if (digest) {
        across_requests_.add(*digest);
      } else if (hint != 0) {
        across_requests_.note(hint);
      }
      return;
    }
    findings.clear();
    for (const Finding& f : found) {
      if (!policy.allow.empty()) {
        // The value as the detector read it: "help＠acme.example" is the
        // allowed "help@acme.example" (normalise.h).
        const std::string_view value = std::string_view(text).substr(f.offset, f.length);
        const std::optional<NormalisedText> read = normalise(value);
        if (policy.allow.allows(f.category, read ? read->text() : value)) continue;
      }
      findings.push_back(mgw_pii_finding{mgw::str(name(f.category)), f.offset, f.length,
                                         policy.critical.contains(f.category) ? 1 : 0});
    }
    if (findings.empty()) return;  // every finding allowed by this policy
    if (!scope) scope.emplace(mode);

    const std::string path = ref.path(&detector_);
    mgw_pii_text piece{};
    piece.struct_size = sizeof piece;
    piece.path = mgw::str(path);
    piece.text = mgw::str(text);
    piece.findings = findings.data();
    piece.finding_count = findings.size();
    piece.finding_size = sizeof(mgw_pii_finding);
    Decision d;
    mgw_pii_sink sink{sizeof(mgw_pii_sink), &d, &Decision::reject, &Decision::replace, &Decision::record};
    const mgw_status st = mode.hooks().on_pii_apply(scope->handle(), &piece, &sink);
    if (d.guard.failed()) {
      throw plugins::PluginError("PII mode '" + mode.name() + "' passed what the gateway could not take on " +
                                 path);
    }
    if (st != MGW_OK) {
      throw plugins::PluginError("PII mode '" + mode.name() + "' failed on " + path + " (status " +
                                 std::to_string(static_cast<int>(st)) + ")");
    }
    for (std::size_t i = 0; i < kCategoryCount; ++i) {
      verdict.counts[i] += d.counts[i];
      recorded = recorded || d.counts[i] != 0;
    }
    if (d.rejected) {
      verdict.rejection = errors::ApiError{422, "pii_detected",
                                           path + " contains " + blocked_categories(d, findings) +
                                               ", which this tenant's PII policy does not allow to be sent; "
                                               "remove it and send the request again",
                                           path};
      return;
    }
    if (d.replacement) {
      std::vector<std::variant<std::string, std::size_t>> at;
      for (const detail::Step* s = ref.step; s != nullptr; s = s->parent) {
        if (s->key != nullptr) {
          at.emplace_back(*s->key);
        } else {
          at.emplace_back(s->index);
        }
      }
      std::reverse(at.begin(), at.end());
      verdict.replacements.emplace_back(std::move(at), *d.replacement);
      *ref.node = std::move(*d.replacement);
      verdict.changed = true;
    }
  });
  if (verdict.rejection) {
    verdict.action = "blocked";
  } else if (verdict.changed) {
    verdict.action = "masked";
  } else if (recorded) {
    verdict.action = "flagged";
  }
  return verdict;
}

}  // namespace modelgw::pii
