// Token counting for the context-window check: real BPE tokenizers for
// OpenAI's o200k_base and cl100k_base (tiktoken's algorithm, ranks embedded
// at build time), the chat-request counting rules, and an estimate for
// vendors whose tokenizer is not public. See core/tokenizer/README.md.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace modelgw::tokenizer {

// One tokenizer. Every method is thread-safe and may run concurrently.
class Encoding {
 public:
  virtual ~Encoding() = default;
  virtual std::string_view name() const = 0;  // "o200k_base"
  // Same as encode(utf8).size(), without building the vector.
  virtual std::size_t count(std::string_view utf8) const = 0;
  // The token ids, as tiktoken's encode_ordinary gives them: special-token
  // text such as "<|endoftext|>" is ordinary text. Invalid UTF-8 never
  // crashes: bytes that are not valid UTF-8 are encoded as raw byte tokens.
  virtual std::vector<std::uint32_t> encode(std::string_view utf8) const = 0;
};

// "o200k_base" or "cl100k_base"; nullptr for an unknown name. The first call
// for a name builds that encoding (tens of milliseconds; thread-safe, once);
// later calls are a string compare. Throws std::runtime_error only if the
// embedded data is broken, which the build already rules out.
const Encoding* find_encoding(std::string_view name);

// Prompt tokens of an OpenAI chat request body (parsed), the way OpenAI
// counts them: per message 3 tokens + tokens of role, content (string, or
// the text parts of an array), and name (+1 when name is present); +3 for
// the reply priming. Approximations (see README.md): tool_calls count the
// function name and arguments as text, tool definitions count name,
// description and the compact JSON of the parameters as text, and every
// image part counts a fixed 85 tokens (OpenAI's price of a low-detail image).
// With enc == nullptr the text is measured with estimate_tokens instead.
// Members of the wrong JSON type are skipped, never thrown on.
std::size_t count_chat_prompt(const Encoding* enc, const nlohmann::json& request);

// An upper bound on the prompt tokens any byte-level tokenizer (BPE over
// UTF-8 bytes, or SentencePiece with byte fallback, as Anthropic's and
// Google's are) can count for the request: every text byte at most one
// token, plus the framing each message, image and tool definition may add.
// What money and rate limits hold for a model whose tokenizer is not public:
// the vendor's count never passes it, whatever the script (Arabic, CJK,
// emoji, random bytes). Images count the most one image costs after the
// vendors' resizing (README.md); audio and file parts are not bounded.
std::size_t bound_chat_prompt(const nlohmann::json& request);

// The estimate used when no encoding applies: a weighted character count,
// rounded down. Per character, in tokens: ASCII letter 0.17 (about 5.5
// letters per token), whitespace run 0.17 whatever its length, digit 0.30,
// ASCII punctuation 0.40, 2-byte UTF-8 character (Cyrillic, Greek, Arabic,
// accents) 0.17, CJK ideograph or kana 0.50, Hangul syllable 0.45, other
// 3-byte character (Indic, Thai, symbols) 0.28, 4-byte character (emoji) 1.
// The weights sit just below what o200k_base, the most token-efficient
// public vocabulary, counts for ordinary text in each script, so for the
// vendors' own (less efficient) tokenizers the estimate errs LOW. That is the
// safe side for the context-window check: an undercount only lets the vendor
// refuse the request itself, an overcount would refuse a request the vendor
// would have served. Only long runs of one repeated letter count high.
std::size_t estimate_tokens(std::string_view utf8);

}  // namespace modelgw::tokenizer
