// Making vendor text safe to pass on. A provider cannot know what its vendor,
// or a proxy in front of it, echoes (OpenAI's 401 message quotes part of the
// key; Google's errors may quote a key, a token or a URL with ?key=…), so
// anything that looks like a credential is masked before it reaches a client
// or a log. Header-only C++17; needs only the C++ standard library.
#pragma once

#include <modelgw/provider/ascii.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace mgw::provider {

// Longest vendor message passed on, in bytes.
inline constexpr std::size_t kVendorTextLimit = 300;

// Known credential prefixes, most specific first; what follows the prefix is
// masked and the prefix kept, so a message still says whose key it was:
// Anthropic (sk-ant-), OpenAI and most OpenAI-compatible vendors (sk-, sk_),
// Groq (gsk_), xAI (xai-), Hugging Face (hf_), Google API keys (AIza) and
// Google OAuth access tokens (ya29.).
inline constexpr std::array<std::string_view, 8> kSecretPrefixes = {"sk-ant-", "sk-", "sk_",  "gsk_",
                                                                    "xai-",    "hf_", "AIza", "ya29."};

namespace detail {

inline constexpr std::string_view kMask = "***";

// Characters keys are made of: letters, digits, '-' and '_' (base64url);
// '*' too, because vendors echo half-masked keys ("sk-proj-****abcd") and the
// tail must go with the rest. Not '.', which would join "file.name" and
// dotted field paths into runs long enough to look generated; a token whose
// prefix holds a dot ("ya29.a0Af…") runs over dots (see token_end).
inline constexpr bool is_key_char(char c) noexcept {
  return is_ascii_alpha(c) || is_ascii_digit(c) || c == '-' || c == '_' || c == '*';
}

// RFC 6750 b64token characters: what may follow "Bearer " (a JWT's dots and
// standard base64's '+' '/' '=' included).
inline constexpr bool is_bearer_char(char c) noexcept {
  return is_key_char(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '=';
}

// A long run mixing letters and digits reads like a generated credential;
// words, numbers and vendors' ~30-character ids (msg_…, toolu_…) do not.
inline constexpr bool looks_generated(std::string_view run) noexcept {
  constexpr std::size_t kMinLength = 40;
  if (run.size() < kMinLength) {
    return false;
  }
  bool letter = false;
  bool digit = false;
  for (char c : run) {
    letter = letter || is_ascii_alpha(c);
    digit = digit || is_ascii_digit(c);
  }
  return letter && digit;
}

// `run` without its trailing dots, which `dots` receives: a sentence's full
// stop after a dotted token or a bearer token stays ("…token ya29.xyz." ends
// with its stop).
inline constexpr std::string_view without_trailing_dots(std::string_view run,
                                                        std::string_view& dots) noexcept {
  std::size_t n = run.size();
  while (n > 0 && run[n - 1] == '.') {
    --n;
  }
  dots = run.substr(n);
  return run.substr(0, n);
}

// Where the run of key characters starting at text[i] ends; a run that starts
// with a dotted prefix of kSecretPrefixes runs over dots too.
inline std::size_t token_end(std::string_view text, std::size_t i) noexcept {
  bool dotted = false;
  for (std::string_view prefix : kSecretPrefixes) {
    dotted =
        dotted || (prefix.find('.') != std::string_view::npos && text.substr(i, prefix.size()) == prefix);
  }
  while (i < text.size() && (is_key_char(text[i]) || (dotted && text[i] == '.'))) {
    ++i;
  }
  return i;
}

// Appends one run of key characters, masked when it looks like a secret.
inline void append_run(std::string& out, std::string_view run) {
  std::string_view dots;
  run = without_trailing_dots(run, dots);
  for (std::string_view prefix : kSecretPrefixes) {
    if (run.size() > prefix.size() && run.substr(0, prefix.size()) == prefix) {
      out.append(prefix).append(kMask).append(dots);
      return;
    }
  }
  out.append(looks_generated(run) ? kMask : run).append(dots);
}

// `text` with every occurrence of `what` replaced by the mask.
inline std::string without(std::string_view text, std::string_view what) {
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, from)) {
    out.append(text.substr(from, at - from)).append(kMask);
    from = at + what.size();
  }
  out.append(text.substr(from));
  return out;
}

}  // namespace detail

// Masks, in `text`, in this order:
//   - the configured api_key itself, wherever it appears (when 8+ bytes long);
//   - tokens with a prefix of kSecretPrefixes: "sk-abc…" → "sk-***";
//   - the token after "Bearer " (any case, any number of spaces) → "***";
//   - any other run of 40+ key characters mixing letters and digits → "***".
// A masked token's trailing full stops are kept. Control characters become
// spaces so a message stays one line.
inline std::string mask_secrets(std::string_view text, std::string_view api_key) {
  // A configured key too short to be real would mask ordinary words.
  constexpr std::size_t kMinKeyLength = 8;
  std::string keyless;
  if (api_key.size() >= kMinKeyLength && text.find(api_key) != std::string_view::npos) {
    keyless = detail::without(text, api_key);
    text = keyless;
  }
  std::string out;
  out.reserve(text.size());
  bool after_bearer = false;
  for (std::size_t i = 0; i < text.size();) {
    if (after_bearer && detail::is_bearer_char(text[i])) {
      const std::size_t start = i;
      while (i < text.size() && detail::is_bearer_char(text[i])) {
        ++i;
      }
      std::string_view dots;
      const std::string_view token = detail::without_trailing_dots(text.substr(start, i - start), dots);
      out.append(token.empty() ? std::string_view{} : detail::kMask).append(dots);
      after_bearer = false;
      continue;
    }
    if (!detail::is_key_char(text[i])) {
      const auto u = static_cast<unsigned char>(text[i]);
      out.push_back(u < 0x20 || u == 0x7f ? ' ' : text[i]);
      after_bearer = after_bearer && text[i] == ' ';  // "Bearer   tok" still counts
      ++i;
      continue;
    }
    const std::size_t end = detail::token_end(text, i);
    const std::string_view run = text.substr(i, end - i);
    detail::append_run(out, run);
    after_bearer = iequals(run, "Bearer") && end < text.size() && text[end] == ' ';
    i = end;
  }
  return out;
}

// The longest prefix of `s` of at most `limit` bytes that ends on a UTF-8
// character boundary.
inline std::string_view utf8_prefix(std::string_view s, std::size_t limit) noexcept {
  if (s.size() <= limit) {
    return s;
  }
  std::size_t cut = limit;
  // s[cut] is the first byte dropped: back off while it continues a sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return s.substr(0, cut);
}

// A vendor message ready to pass on: without surrounding whitespace (vendors'
// messages often end in a line break, which would become a trailing space),
// masked, then cut to at most `limit` bytes without splitting a UTF-8 sequence.
inline std::string vendor_text(std::string_view raw, std::string_view api_key,
                               std::size_t limit = kVendorTextLimit) {
  const auto first = raw.find_first_not_of(" \t\r\n");
  raw = first == std::string_view::npos ? std::string_view()
                                        : raw.substr(first, raw.find_last_not_of(" \t\r\n") - first + 1);
  // Mask a bounded window only, since the result is cut anyway; the margin
  // lets a secret straddling the limit still be recognised whole.
  constexpr std::size_t kMargin = 1024;
  std::string masked = mask_secrets(utf8_prefix(raw, limit + kMargin), api_key);
  masked.resize(utf8_prefix(masked, limit).size());
  return masked;
}

}  // namespace mgw::provider
