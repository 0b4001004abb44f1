#include "corpus.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace modelgw::bench {
namespace {

// A fixed-seed generator: std::mt19937's distributions are not specified
// bit-for-bit across standard libraries, so a tiny explicit one is used.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;  // splitmix64
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  template <class C>
  const auto& pick(const C& c) {
    return c[below(std::size(c))];
  }

 private:
  std::uint64_t state_;
};

constexpr std::array<std::string_view, 64> kWords = {
    "the",       "gateway",   "request",   "model",     "token",   "context",  "window",  "vendor",
    "answer",    "stream",    "client",    "server",    "message", "limit",    "count",   "before",
    "after",     "every",     "which",     "would",     "could",   "should",   "because", "through",
    "between",   "against",   "without",   "during",    "people",  "system",   "number",  "problem",
    "question",  "important", "different", "following", "however", "although", "simple",  "quickly",
    "carefully", "it's",      "don't",     "they're",   "we'll",   "cannot",   "and",     "or",
    "of",        "to",        "in",        "is",        "was",     "for",      "on",      "with",
    "as",        "by",        "at",        "from",      "that",    "this",     "not"};

constexpr std::array<std::string_view, 24> kIdentifiers = {
    "count",  "index",   "buffer", "result", "encoding", "table",  "piece", "offset",
    "length", "request", "reply",  "status", "handler",  "config", "value", "items",
    "total",  "rank",    "tokens", "parts",  "limit",    "name",   "size",  "error"};

// Common Chinese characters and Japanese kana, with their punctuation.
constexpr std::array<std::string_view, 48> kCjk = {
    "的", "一", "是", "不", "了", "人", "我", "在", "有", "他", "这", "中", "大", "来", "上", "国",
    "个", "到", "说", "们", "为", "子", "和", "你", "地", "出", "道", "也", "时", "年", "模", "型",
    "请", "求", "网", "关", "の", "に", "は", "を", "た", "が", "で", "て", "と", "し", "れ", "さ"};

void prose(Rng& rng, std::string& out, std::size_t bytes) {
  while (out.size() < bytes) {
    const std::size_t words = 6 + rng.below(16);
    for (std::size_t w = 0; w < words; ++w) {
      std::string word(rng.pick(kWords));
      if (w == 0) word[0] = static_cast<char>(word[0] - 'a' + 'A');
      out += word;
      if (w + 1 < words) out += rng.below(10) == 0 ? ", " : " ";
    }
    out += rng.below(8) == 0 ? "?" : ".";
    out += rng.below(5) == 0 ? "\n\n" : " ";
  }
}

void code(Rng& rng, std::string& out, std::size_t bytes) {
  while (out.size() < bytes) {
    const std::string a(rng.pick(kIdentifiers)), b(rng.pick(kIdentifiers));
    const std::string indent(2 * (1 + rng.below(3)), ' ');
    switch (rng.below(5)) {
      case 0:
        out += indent + "for (std::size_t i = 0; i < " + a + ".size(); ++i) {\n";
        break;
      case 1:
        out +=
            indent + "const auto " + a + "_" + b + " = " + b + "[" + std::to_string(rng.below(64)) + "];\n";
        break;
      case 2:
        out += indent + "if (" + a + " == nullptr) return " + b + "->" + a + "(" +
               std::to_string(rng.below(1000)) + ");\n";
        break;
      case 3:
        out += indent + "// " + std::string(rng.pick(kWords)) + " the " + a + " before the " + b + "\n";
        break;
      default:
        out += indent + "}\n";
        break;
    }
  }
}

void cjk(Rng& rng, std::string& out, std::size_t bytes) {
  while (out.size() < bytes) {
    const std::size_t chars = 8 + rng.below(24);
    for (std::size_t c = 0; c < chars; ++c) out += rng.pick(kCjk);
    out += rng.below(3) == 0 ? "，" : "。";
    if (rng.below(6) == 0) out += "\n";
  }
}

void numbers(Rng& rng, std::string& out, std::size_t bytes) {
  while (out.size() < bytes) {
    switch (rng.below(4)) {
      case 0:
        out += std::to_string(rng.next() % 100000000);
        break;
      case 1:
        out += std::to_string(rng.below(1000)) + "." + std::to_string(rng.below(100000));
        break;
      case 2:
        out += "20" + std::to_string(10 + rng.below(15)) + "-0" + std::to_string(1 + rng.below(9)) + "-" +
               std::to_string(10 + rng.below(18));
        break;
      default:
        out += std::to_string(rng.below(1000)) + "," + std::to_string(100 + rng.below(900));
        break;
    }
    out += rng.below(8) == 0 ? "\n" : (rng.below(2) == 0 ? ", " : " ");
  }
}

}  // namespace

std::vector<CorpusSection> make_corpus(std::size_t bytes) {
  const std::size_t each = bytes / 4;
  Rng rng(0x6d6f64656c677721ULL);
  std::vector<CorpusSection> sections = {{"prose", {}}, {"code", {}}, {"cjk", {}}, {"numbers", {}}};
  prose(rng, sections[0].text, each);
  code(rng, sections[1].text, each);
  cjk(rng, sections[2].text, each);
  numbers(rng, sections[3].text, each);
  return sections;
}

std::string interleave(const std::vector<CorpusSection>& sections) {
  constexpr std::size_t kSlice = 4096;
  std::string out;
  std::vector<std::size_t> at(sections.size(), 0);
  for (bool more = true; more;) {
    more = false;
    for (std::size_t s = 0; s < sections.size(); ++s) {
      const std::string& text = sections[s].text;
      if (at[s] >= text.size()) continue;
      // Never cut inside a UTF-8 character: move past continuation bytes.
      std::size_t end = std::min(text.size(), at[s] + kSlice);
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      out.append(text, at[s], end - at[s]);
      at[s] = end;
      more = true;
    }
  }
  return out;
}

}  // namespace modelgw::bench
