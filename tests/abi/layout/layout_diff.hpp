// What changed between two layouts, and which of the changes break a plugin
// built against the older one (sdk/ABI_POLICY.md: what a minor may add).
#pragma once

#include <string>
#include <vector>

#include "layout_model.hpp"

namespace abi_layout {

struct LayoutDiff {
  // The changed lines of the canonical text, as a diff shows them: "- " for a
  // line of the old layout, "+ " for one of the new, "  " for the struct they
  // belong to.
  std::vector<std::string> lines;
  // One sentence per change a minor version may not make.
  std::vector<std::string> breaking;
};

// Compares by name, so the order of the list does not count; the version
// line is part of the diff, but a version change is never "breaking".
LayoutDiff diff_layouts(const Layout& before, const Layout& after);

}  // namespace abi_layout
