// What the layout test says when the dumped layout is not the snapshot's:
// the rules of sdk/ABI_POLICY.md applied to the change.
#pragma once

#include <string>
#include <string_view>

#include "layout_diff.hpp"
#include "layout_model.hpp"

namespace abi_layout {

enum class Outcome {
  kMatches,     // the dump is the snapshot
  kRegenerate,  // an allowed change under a new version: the snapshot is stale
  kRejected,    // a change the version does not allow
};

struct Verdict {
  Outcome outcome = Outcome::kRejected;
  std::string message;  // for the person who changed plugin.h
};

// `text_equal`: whether the two texts are identical (the diff compares by
// name, so it misses a change of listing order alone).
Verdict judge_snapshot(const Layout& snapshot, const Layout& dump, const LayoutDiff& diff, bool text_equal,
                       std::string_view regenerate_command);

}  // namespace abi_layout
