#include "secret_mask.h"

#include "http_util.h"

#include <array>

namespace mgw::gemini {
namespace {

constexpr std::string_view kMask = "***";

// Characters keys are made of; '*' too, because vendors echo half-masked keys
// ("AIza****abcd") and the tail must go with the rest; '.' for OAuth tokens
// ("ya29.a0Af…"), so the whole token is one run.
bool is_key_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '*' || c == '.';
}

bool starts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// Known credential prefixes; what follows the prefix is masked. Google's API
// keys start "AIza", its OAuth access tokens "ya29.".
constexpr std::array<std::string_view, 7> kKeyPrefixes = {"AIza", "ya29.", "sk-", "sk_",
                                                          "gsk_", "xai-",  "hf_"};

// A long run mixing letters and digits reads like a generated credential;
// plain words and numbers do not.
bool looks_generated(std::string_view run) noexcept {
  constexpr std::size_t kMinGeneratedLength = 40;
  if (run.size() < kMinGeneratedLength) {
    return false;
  }
  bool letter = false;
  bool digit = false;
  for (char c : run) {
    letter = letter || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    digit = digit || (c >= '0' && c <= '9');
  }
  return letter && digit;
}

// Appends one run of key characters, masked when it looks like a secret.
// `after_bearer` is true when the run follows "Bearer ".
void append_run(std::string& out, std::string_view run, bool after_bearer) {
  // A sentence's full stop joins the run ('.' is a key character); keep it
  // out so "…key AIzaXYZ." still ends with its stop.
  std::string_view tail;
  while (!run.empty() && run.back() == '.') {
    run.remove_suffix(1);
    tail = std::string_view(run.data() + run.size(), tail.size() + 1);
  }
  if (after_bearer && !run.empty()) {
    out.append(kMask).append(tail);
    return;
  }
  for (std::string_view prefix : kKeyPrefixes) {
    if (run.size() > prefix.size() && starts_with(run, prefix)) {
      out.append(prefix).append(kMask).append(tail);
      return;
    }
  }
  if (looks_generated(run)) {
    out.append(kMask).append(tail);
    return;
  }
  out.append(run).append(tail);
}

// `text` with every occurrence of `key` replaced by the mask.
std::string without_key(std::string_view text, std::string_view key) {
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, from)) {
    out.append(text.substr(from, at - from)).append(kMask);
    from = at + key.size();
  }
  out.append(text.substr(from));
  return out;
}

}  // namespace

std::string mask_secrets(std::string_view text, std::string_view api_key) {
  // A key too short to be real would mask ordinary words.
  constexpr std::size_t kMinKeyLength = 8;
  std::string keyless;
  if (api_key.size() >= kMinKeyLength && text.find(api_key) != std::string_view::npos) {
    keyless = without_key(text, api_key);
    text = keyless;
  }

  std::string out;
  out.reserve(text.size());
  bool after_bearer = false;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (!is_key_char(c)) {
      const auto u = static_cast<unsigned char>(c);
      out.push_back(u < 0x20 || u == 0x7f ? ' ' : c);
      // "Bearer" must be followed by spaces only for the next run to be the token.
      if (c != ' ') {
        after_bearer = false;
      }
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_key_char(text[end])) {
      ++end;
    }
    const std::string_view run = text.substr(i, end - i);
    append_run(out, run, after_bearer);
    after_bearer = iequals(run, "Bearer") && end < text.size() && text[end] == ' ';
    i = end;
  }
  return out;
}

std::string_view utf8_prefix(std::string_view s, std::size_t limit) noexcept {
  if (s.size() <= limit) {
    return s;
  }
  std::size_t cut = limit;
  // Back off continuation bytes (10xxxxxx) so the cut lands before a lead byte.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return s.substr(0, cut);
}

std::string vendor_text(std::string_view raw, std::string_view api_key, std::size_t limit) {
  // Google's messages often end in a line break ("…is not specified\n"),
  // which would become a trailing space.
  const auto first = raw.find_first_not_of(" \t\r\n");
  raw = first == std::string_view::npos ? std::string_view()
                                        : raw.substr(first, raw.find_last_not_of(" \t\r\n") - first + 1);
  // Mask a bounded window only: the result is cut to `limit` anyway, and the
  // margin lets a secret that straddles the limit still be recognised whole.
  constexpr std::size_t kWindowMargin = 1024;
  std::string masked = mask_secrets(utf8_prefix(raw, limit + kWindowMargin), api_key);
  masked.resize(utf8_prefix(masked, limit).size());
  return masked;
}

}  // namespace mgw::gemini
