// The PII bench's inputs: deterministic messages generated in the program (no
// data file), so runs compare across machines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::bench::pii {

struct Workload {
  std::string name;         // "clean", "pii", "adv-digits", ...
  std::string description;  // one line for the report
  bool adversarial;
};

// All workloads, in report order: typical chat text without PII, chat text
// with about one PII value per 500 bytes, the same two with text that is not
// ASCII (the values disguised with Unicode look-alikes), then the adversarial
// inputs (one pattern repeated over the whole message each, and all of them
// mixed).
const std::vector<Workload>& workloads();

// A message of exactly `bytes` bytes of the named workload (ASCII but for
// "intl" and "pii-disguised"; cut at `bytes`, a last UTF-8 sequence may be
// cut too). The same arguments always give the same text.
std::string make_text(std::string_view workload, std::size_t bytes);

}  // namespace modelgw::bench::pii
