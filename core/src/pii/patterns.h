// The candidate patterns of the PII detector: for each, the category it finds,
// its RE2 syntax and which check confirms a candidate. Patterns are deliberately
// generous; the checks (validators.h plus the context rules in detector.cpp)
// keep false positives down.
#pragma once

#include "pii/category.h"

#include <span>
#include <string_view>

namespace modelgw::pii {

// How a candidate is confirmed.
enum class Check : std::uint8_t {
  email,
  phone,
  card,
  ssn,
  iban,
  ipv4,
  ipv6,
  jwt,
  key,   // a provider/cloud key: letters and digits mixed
  pem,   // a private key header, extended over its body to the END line when there is one
  none,  // the pattern is specific enough on its own (AWS key ids, GitHub tokens)
  birth_date,
};

// Where a pattern's candidates can lie, so that locating them need not run
// its regex over the whole text (a full pass costs as much as the first one).
enum class Reach : std::uint8_t {
  anywhere,
  // Inside a run of digits and " .-/()+" holding at least `min_digits` digits.
  numeric_run,
  // Around an '@': local-part characters before it, domain characters after.
  at_sign,
};

struct Pattern {
  Category category;
  Check check;
  // RE2 syntax, compiled as Latin-1 (bytes): non-ASCII literals are written in
  // UTF-8 and so match their UTF-8 bytes. When the pattern has a capturing
  // group, group 1 is the value (the rest is context such as "SSN:").
  std::string_view regex;
  Reach reach = Reach::anywhere;
  int min_digits = 0;  // for numeric_run: the fewest digits a match holds
};

std::span<const Pattern> patterns();

}  // namespace modelgw::pii
