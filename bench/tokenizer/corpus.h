// The benchmark's input: a deterministic mixed corpus (English prose, code,
// CJK text, numbers), generated in the program so runs compare across
// machines and no data file is needed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace modelgw::bench {

struct CorpusSection {
  std::string name;  // "prose", "code", "cjk", "numbers"
  std::string text;
};

// About `bytes` bytes in total, split evenly between the sections. The same
// `bytes` always gives the same text.
std::vector<CorpusSection> make_corpus(std::size_t bytes);

// The sections interleaved in 4 KiB slices, as a mixed workload.
std::string interleave(const std::vector<CorpusSection>& sections);

}  // namespace modelgw::bench
