#include "layout_verdict.hpp"

#include <tuple>

namespace abi_layout {
namespace {

std::string version(const Layout& layout) {
  return std::to_string(layout.major) + "." + std::to_string(layout.minor);
}

std::string listed(const std::vector<std::string>& sentences) {
  std::string out;
  for (const std::string& s : sentences) out += "  - " + s + "\n";
  return out;
}

std::string regenerate(std::string_view command) {
  return "regenerate the snapshot with\n  " + std::string(command) +
         "\nand commit sdk/abi/layout.txt with the header change.";
}

}  // namespace

Verdict judge_snapshot(const Layout& snapshot, const Layout& dump, const LayoutDiff& diff, bool text_equal,
                       std::string_view regenerate_command) {
  if (text_equal)
    return {Outcome::kMatches, "plugin.h's layout matches sdk/abi/layout.txt (ABI " + version(dump) + ")."};

  const auto old_version = std::tie(snapshot.major, snapshot.minor);
  const auto new_version = std::tie(dump.major, dump.minor);
  if (new_version < old_version) {
    return {Outcome::kRejected, "The ABI version went back from " + version(snapshot) + " to " +
                                    version(dump) + ": versions only rise."};
  }
  const bool layout_changed = diff.lines.size() > (new_version == old_version ? 0U : 2U);
  if (new_version == old_version) {
    if (!layout_changed) {
      return {Outcome::kRegenerate,
              "The layout is the same, listed in another order: " + regenerate(regenerate_command)};
    }
    std::string message =
        "The layout of plugin.h changed but the ABI version is still " + version(dump) +
        ". Every layout change needs a new version (sdk/ABI_POLICY.md): MGW_ABI_MINOR + 1 when "
        "each change only adds (a field or hook at the end of a growable struct, a struct, a "
        "constant), MGW_ABI_MAJOR + 1 otherwise.\n";
    message += diff.breaking.empty()
                   ? "This change only adds: a minor version may carry it.\n"
                   : "A minor version may not carry these changes:\n" + listed(diff.breaking);
    return {Outcome::kRejected, message + "Then " + regenerate(regenerate_command)};
  }
  if (dump.major > snapshot.major) {
    return {Outcome::kRegenerate, "The ABI major rose from " + std::to_string(snapshot.major) + " to " +
                                      std::to_string(dump.major) + ": every change is allowed; " +
                                      regenerate(regenerate_command)};
  }
  if (!diff.breaking.empty()) {
    return {Outcome::kRejected, "The ABI rose from " + version(snapshot) + " to " + version(dump) +
                                    ", a minor version, but these changes break plugins built against " +
                                    version(snapshot) + ":\n" + listed(diff.breaking) +
                                    "Undo them, or make them in a new major version (sdk/ABI_POLICY.md)."};
  }
  return {Outcome::kRegenerate,
          "The ABI rose from " + version(snapshot) + " to " + version(dump) +
              " and every change only adds, as a minor version may: " + regenerate(regenerate_command)};
}

}  // namespace abi_layout
