#include "chat/generated_text.h"

#include <array>

namespace modelgw::chat {
namespace {

// Length of the JSON string body starting at `from` (just after its opening
// quote), escapes counted as the one character they stand for.
std::size_t string_body_bytes(std::string_view s, std::size_t from, std::size_t& end) {
  std::size_t bytes = 0;
  std::size_t i = from;
  while (i < s.size() && s[i] != '"') {
    if (s[i] == '\\') ++i;  // the escaped character (a \uXXXX counts 5 too few bytes; an estimate)
    ++i;
    ++bytes;
  }
  end = i;
  return bytes;
}

// The bytes of every string value of `key` (`"name":"` as written) in `chunk`.
std::size_t key_string_bytes(std::string_view chunk, std::string_view key) {
  std::size_t total = 0;
  std::size_t at = chunk.find(key);
  while (at != std::string_view::npos) {
    std::size_t end = 0;
    total += string_body_bytes(chunk, at + key.size(), end);
    at = chunk.find(key, end);
  }
  return total;
}

}  // namespace

std::size_t generated_text_bytes(std::string_view chunk) {
  // Plugins emit compact JSON (no space after ':'). An escaped quote inside a
  // string shows as \" and so never matches these keys.
  // "delta" as a string is a Responses API event's (output text, function
  // call arguments, reasoning summary: a provider that serves that API
  // natively); a chat chunk's delta is an object, which never matches.
  static constexpr std::array<std::string_view, 5> kKeys = {
      "\"content\":\"", "\"arguments\":\"", "\"refusal\":\"", "\"reasoning_content\":\"", "\"delta\":\""};
  std::size_t total = 0;
  for (auto key : kKeys) total += key_string_bytes(chunk, key);
  // An Anthropic Messages content_block_delta (a provider that serves that
  // API natively): its delta's text, thinking or partial_json. Only in such
  // an event: elsewhere "text" repeats what deltas already gave (a Responses
  // API .done event) or is not generated. The type's quotes cannot come from
  // inside a string value, where a quote is written \".
  if (chunk.find("\"content_block_delta\"") != std::string_view::npos) {
    static constexpr std::array<std::string_view, 3> kAnthropicKeys = {"\"text\":\"", "\"thinking\":\"",
                                                                       "\"partial_json\":\""};
    for (auto key : kAnthropicKeys) total += key_string_bytes(chunk, key);
  }
  return total;
}

}  // namespace modelgw::chat
