// The block PII mode. A text with a critical finding rejects the request; the
// reason lists the critical categories, distinct, in first-seen order
// ("payment_card,ssn"). Every finding, critical or not, is recorded; a text
// without a critical finding goes on unchanged. The mode takes no options.
#include <modelgw/pii_plugin.hpp>

#include "../options_json.h"

#include <optional>
#include <string>
#include <string_view>

namespace mgw::pii::block {

struct Options {};
struct Scope {};  // the decision needs nothing from earlier texts

struct Mode {
  static constexpr const char* kName = "block";
  static constexpr const char* kVersion = "1.0.0";
  using Options = block::Options;
  using Scope = block::Scope;

  static std::optional<Options> parse_options(std::string_view json, std::string& problem) {
    if (!no_options(json, kName, problem)) return std::nullopt;
    return Options{};
  }

  static void apply(const Options&, Scope&, const Text& text, Decision& out) {
    std::string reason = critical_reason(text);
    if (!reason.empty()) out.reject(std::move(reason));
    out.record_all();
  }
};

}  // namespace mgw::pii::block

MGW_PII_PLUGIN(mgw::pii::block::Mode)
