// Splits text into the pieces BPE works on, with the encoding's regex run by
// PCRE2 (JIT-compiled when the platform allows).
#pragma once

#include <memory>
#include <string_view>

namespace modelgw::tokenizer {

class PieceSink {
 public:
  virtual void piece(std::string_view bytes) = 0;

 protected:
  ~PieceSink() = default;
};

class PreTokenizer {
 public:
  // `pcre2_pattern` is already in PCRE2 syntax (see to_pcre2_pattern).
  // Throws std::runtime_error when it does not compile.
  explicit PreTokenizer(std::string_view pcre2_pattern);
  ~PreTokenizer();
  PreTokenizer(const PreTokenizer&) = delete;
  PreTokenizer& operator=(const PreTokenizer&) = delete;

  // Hands every piece of `text` to `sink`, in order. The pieces cover `text`
  // exactly: bytes the regex cannot match (invalid UTF-8, which under
  // PCRE2_MATCH_INVALID_UTF never matches anything) come out as pieces of
  // their own, so every byte is still counted. Thread-safe: the compiled
  // pattern is read-only; match data and the JIT stack are per thread.
  void split(std::string_view text, PieceSink& sink) const;

  // Whether the pattern was JIT-compiled (else PCRE2's interpreter runs it).
  bool jit() const noexcept;

 private:
  struct Compiled;  // keeps pcre2.h out of this header
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace modelgw::tokenizer
