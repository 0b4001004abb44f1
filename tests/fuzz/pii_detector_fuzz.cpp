// The PII detector (pii/detector.h) over any text, and the validators it
// confirms candidates with (pii/validators.h). Input: the text.
//
// Checks: scan() appends findings that are in the text, non-empty, sorted and
// non-overlapping (what the ABI promises mode plugins); each finding of a
// category with a validator passes that validator, in the text the patterns
// read (the normalised view, pii/normalise.h, when the text is not ASCII);
// each finding of a normalised text is its view finding mapped back to the
// original bytes (a later one starting after an earlier one's end when they
// share a rewritten character); and a prefix the validators' *_prefix()
// functions report is one their full check accepts. libFuzzer's -timeout
// catches a scan that is not linear in practice.
#include "pii/category.h"
#include "pii/detector.h"
#include "pii/normalise.h"
#include "pii/validators.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace modelgw::pii;

[[noreturn]] void finding(const std::string& what, std::string_view text = {}) {
  std::fprintf(stderr, "FUZZ FINDING (PII detector): %s '%.*s'\n", what.c_str(),
               static_cast<int>(text.size()), text.data());
  std::abort();
}

// The validator a finding of `c` must pass; nullptr for categories found by
// several checks (secrets).
bool (*validator(Category c))(std::string_view) {
  switch (c) {
    case Category::email:
      return &email_valid;
    case Category::phone:
      return &phone_valid;
    case Category::payment_card:
      return &card_number_valid;
    case Category::ssn:
      return &ssn_valid;
    case Category::iban:
      return &iban_valid;
    case Category::ip_address:
      return [](std::string_view v) { return ipv4_valid(v) || ipv6_valid(v); };
    case Category::date_of_birth:
      return &birth_date_valid;
    case Category::secret:
      return nullptr;
  }
  return nullptr;
}

void check_valid(const Finding& f, std::string_view read) {
  const std::string_view value = read.substr(f.offset, f.length);
  if (const auto valid = validator(f.category); valid != nullptr && !valid(value)) {
    finding(std::string("a ") + std::string(name(f.category)) + " finding its validator refuses", value);
  }
}

// The findings of a normalised text against those of its view.
void check_mapping(const Detector& detector, std::string_view text, const NormalisedText& view,
                   const std::vector<Finding>& found) {
  std::vector<Finding> in_view;
  detector.scan_as_is(view.text(), in_view);
  std::size_t k = 1;  // found[0] is the sentinel
  std::size_t covered = 0;
  for (const Finding& v : in_view) {
    if (v.length == 0 || v.offset + v.length > view.text().size()) finding("a finding outside the view");
    check_valid(v, view.text());
    OriginalRange r = view.original(v.offset, v.length);
    if (r.offset + r.length > text.size()) finding("a view finding mapped past the end of the text");
    if (k > 1 && r.offset < covered) {
      if (r.offset + r.length <= covered) continue;
      r = {covered, r.offset + r.length - covered};
    }
    if (k >= found.size() || found[k] != Finding{v.category, static_cast<std::uint32_t>(r.offset),
                                                 static_cast<std::uint32_t>(r.length)}) {
      finding("a finding that is not its view finding mapped back", text);
    }
    covered = r.offset + r.length;
    ++k;
  }
  if (k != found.size()) finding("a finding with no view finding", text);
}

void check_prefixes(std::string_view text) {
  if (const auto n = card_number_prefix(text)) {
    if (*n > text.size() || !card_number_valid(text.substr(0, *n))) finding("card_number_prefix", text);
  }
  if (const auto n = iban_prefix(text)) {
    if (*n > text.size() || !iban_valid(text.substr(0, *n))) finding("iban_prefix", text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Detector detector;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // A finding already in the vector stays as it was: scan() appends.
  const Finding sentinel{Category::secret, 7, 7};
  std::vector<Finding> found{sentinel};
  detector.scan(text, found);
  if (found.front() != sentinel) finding("scan() changed a finding it did not make");

  std::size_t end_of_last = 0;
  for (std::size_t i = 1; i < found.size(); ++i) {
    const Finding& f = found[i];
    const std::size_t begin = f.offset;
    const std::size_t end = begin + f.length;
    if (f.length == 0) finding("an empty finding");
    if (end > text.size()) finding("a finding past the end of the text");
    if (i > 1 && begin < end_of_last) finding("findings overlap or are out of order");
    end_of_last = end;
  }
  if (const std::optional<NormalisedText> view = normalise(text)) {
    check_mapping(detector, text, *view, found);
  } else {
    for (std::size_t i = 1; i < found.size(); ++i) check_valid(found[i], text);
  }
  check_prefixes(text);
  return 0;
}
