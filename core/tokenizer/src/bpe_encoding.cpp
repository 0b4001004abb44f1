#include "bpe_encoding.h"

#include <stdexcept>
#include <utility>

#include "bpe.h"
#include "pattern.h"

namespace modelgw::tokenizer {
namespace {

// Special-token text such as "<|endoftext|>" gets no special treatment: it
// is split and merged like any other text, as OpenAI does for chat content
// (tiktoken's encode_ordinary).
class EncodeSink final : public PieceSink {
 public:
  EncodeSink(const RankTable& table, std::vector<std::uint32_t>& out) : table_(table), out_(out) {}
  void piece(std::string_view bytes) override {
    // A whole piece that is a token is that one token, without merging (as
    // tiktoken does: merging would not always reach it).
    if (const std::uint32_t r = table_.rank(bytes); r != RankTable::kNoRank) {
      out_.push_back(r);
    } else {
      byte_pair_encode(bytes, table_, out_);
    }
  }

 private:
  const RankTable& table_;
  std::vector<std::uint32_t>& out_;
};

// Counting needs the same merges but not the ids: one-token pieces (most of
// them) are counted without touching a vector, and merged pieces reuse one
// per-thread buffer.
class CountSink final : public PieceSink {
 public:
  explicit CountSink(const RankTable& table) : table_(table) {}
  void piece(std::string_view bytes) override {
    if (table_.rank(bytes) != RankTable::kNoRank) {
      ++count_;
      return;
    }
    thread_local std::vector<std::uint32_t> scratch;
    scratch.clear();
    byte_pair_encode(bytes, table_, scratch);
    count_ += scratch.size();
  }
  std::size_t count() const noexcept { return count_; }

 private:
  const RankTable& table_;
  std::size_t count_ = 0;
};

// find_encoding promises std::runtime_error for broken embedded data; a
// pattern the translation cannot express is such data.
std::string pcre2_pattern(std::string_view rust_pattern) {
  try {
    return to_pcre2_pattern(rust_pattern);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("modelgw tokenizer: unsupported pattern: ") + e.what());
  }
}

}  // namespace

BpeEncoding::BpeEncoding(std::string name, std::span<const unsigned char> blob)
    : name_(std::move(name)), table_(blob), pretokenizer_(pcre2_pattern(table_.pattern())) {}

std::size_t BpeEncoding::count(std::string_view utf8) const {
  CountSink sink(table_);
  pretokenizer_.split(utf8, sink);
  return sink.count();
}

std::vector<std::uint32_t> BpeEncoding::encode(std::string_view utf8) const {
  std::vector<std::uint32_t> out;
  out.reserve(utf8.size() / 4 + 1);
  EncodeSink sink(table_, out);
  pretokenizer_.split(utf8, sink);
  return out;
}

std::string decode(const BpeEncoding& encoding, std::span<const std::uint32_t> tokens) {
  std::string out;
  for (std::uint32_t t : tokens) out += encoding.table().token_bytes(t);
  return out;
}

}  // namespace modelgw::tokenizer
