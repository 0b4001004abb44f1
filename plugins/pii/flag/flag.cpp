// The flag PII mode. The text goes on unchanged and every finding is recorded
// (on the usage record and the audit log). The mode takes no options.
#include <modelgw/pii_plugin.hpp>

#include "../options_json.h"

#include <optional>
#include <string>
#include <string_view>

namespace mgw::pii::flag {

struct Options {};
struct Scope {};

struct Mode {
  static constexpr const char* kName = "flag";
  static constexpr const char* kVersion = "1.0.0";
  using Options = flag::Options;
  using Scope = flag::Scope;

  static std::optional<Options> parse_options(std::string_view json, std::string& problem) {
    if (!no_options(json, kName, problem)) return std::nullopt;
    return Options{};
  }

  static void apply(const Options&, Scope&, const Text&, Decision& out) { out.record_all(); }
};

}  // namespace mgw::pii::flag

MGW_PII_PLUGIN(mgw::pii::flag::Mode)
