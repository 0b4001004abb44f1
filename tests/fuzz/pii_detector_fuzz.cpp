// The PII detector (pii/detector.h) over any text, and the validators it
// confirms candidates with (pii/validators.h). Input: the text.
//
// Checks: scan() appends findings that are in the text, non-empty, sorted and
// non-overlapping (what the ABI promises mode plugins); each finding of a
// category with a validator passes that validator; and a prefix the
// validators' *_prefix() functions report is one their full check accepts.
// libFuzzer's -timeout catches a scan that is not linear in practice.
#include "pii/category.h"
#include "pii/detector.h"
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
    const std::string_view value = text.substr(begin, f.length);
    if (const auto valid = validator(f.category); valid != nullptr && !valid(value)) {
      finding(std::string("a ") + std::string(name(f.category)) + " finding its validator refuses", value);
    }
  }
  check_prefixes(text);
  return 0;
}
