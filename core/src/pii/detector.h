// The PII detector: one RE2::Set pass over a text tells which candidate
// patterns occur at all (for typical chat text: none, and the scan ends there);
// only the patterns that matched are then located, and each candidate is
// confirmed by its category's validator. Linear time in the text for any input.
// Built once at start-up; scan() is const and thread-safe.
#pragma once

#include "pii/finding.h"

#include <memory>
#include <string_view>
#include <vector>

namespace modelgw::pii {

class Detector {
 public:
  Detector();
  ~Detector();
  Detector(const Detector&) = delete;
  Detector& operator=(const Detector&) = delete;

  // Appends the findings in `text` to `out`, sorted by offset and
  // non-overlapping (where candidates overlap, the more severe category wins,
  // then the longer span). Texts of 4 GiB or more are not supported (offsets
  // are 32-bit); the gateway's body limit is far below.
  //
  // A text that is not pure ASCII is read as its normalised view
  // (normalise.h: a full-width or Arabic-Indic card, one with zero-width
  // spaces in it, are found), and each finding is that of the view mapped
  // back onto the original bytes: whole characters, the zero-width ones inside
  // the value included. Where two findings of the view touch one rewritten
  // character ("½" read as "1⁄2"), the later one starts after it.
  void scan(std::string_view text, std::vector<Finding>& out) const;

  // scan() without the view: `text` is read as it is and the offsets are its
  // own. scan(t) is scan_as_is(normalise(t)->text()) mapped back; the fuzz
  // target checks the one against the other.
  void scan_as_is(std::string_view text, std::vector<Finding>& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace modelgw::pii
