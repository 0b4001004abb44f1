#include "secret_mask.h"

#include "http_util.h"

#include <array>

namespace mgw::anthropic {
namespace {

constexpr std::string_view kMask = "***";

// Characters keys are made of (Anthropic keys are base64url after
// "sk-ant-api03-"); '*' too, so a half-masked echo ("sk-ant-****abcd") loses
// its tail with the rest.
bool is_key_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '*';
}

// RFC 6750 b64token characters: what may follow "Bearer ", dots of a JWT and
// '/' '+' '=' of standard base64 included.
bool is_bearer_char(char c) noexcept {
  return is_key_char(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '=';
}

// Most specific first: "sk-ant-" keeps the vendor visible in the message.
constexpr std::array<std::string_view, 2> kKeyPrefixes = {"sk-ant-", "sk-"};

// A long run mixing letters and digits reads like a generated credential;
// words, numbers and Anthropic's ~30-character ids (msg_…, toolu_…) do not.
bool looks_generated(std::string_view run) noexcept {
  constexpr std::size_t kMinLength = 40;
  if (run.size() < kMinLength) {
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

void append_run(std::string& out, std::string_view run) {
  for (std::string_view prefix : kKeyPrefixes) {
    if (run.size() > prefix.size() && run.substr(0, prefix.size()) == prefix) {
      out.append(prefix).append(kMask);
      return;
    }
  }
  out.append(looks_generated(run) ? kMask : run);
}

std::string replace_all(std::string_view text, std::string_view what, std::string_view with) {
  std::string out;
  std::size_t from = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, from)) {
    out.append(text.substr(from, at - from)).append(with);
    from = at + what.size();
  }
  out.append(text.substr(from));
  return out;
}

std::string mask(std::string_view text, std::string_view api_key) {
  // A configured key too short to be real would mask ordinary words.
  constexpr std::size_t kMinKeyLength = 8;
  std::string keyless;
  if (api_key.size() >= kMinKeyLength && text.find(api_key) != std::string_view::npos) {
    keyless = replace_all(text, api_key, kMask);
    text = keyless;
  }
  std::string out;
  out.reserve(text.size());
  bool after_bearer = false;
  for (std::size_t i = 0; i < text.size();) {
    if (after_bearer && is_bearer_char(text[i])) {
      while (i < text.size() && is_bearer_char(text[i])) {
        ++i;
      }
      out.append(kMask);
      after_bearer = false;
      continue;
    }
    if (!is_key_char(text[i])) {
      const auto u = static_cast<unsigned char>(text[i]);
      out.push_back(u < 0x20 || u == 0x7f ? ' ' : text[i]);
      after_bearer = after_bearer && text[i] == ' ';  // "Bearer   tok" still counts
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_key_char(text[end])) {
      ++end;
    }
    const std::string_view run = text.substr(i, end - i);
    append_run(out, run);
    after_bearer = iequals(run, "Bearer") && end < text.size() && text[end] == ' ';
    i = end;
  }
  return out;
}

}  // namespace

std::string_view utf8_prefix(std::string_view s, std::size_t limit) noexcept {
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

std::string vendor_text(std::string_view raw, std::string_view api_key, std::size_t limit) {
  // Mask a bounded window only, since the result is cut anyway; the margin
  // lets a secret straddling the limit still be recognised whole.
  constexpr std::size_t kMargin = 1024;
  std::string masked = mask(utf8_prefix(raw, limit + kMargin), api_key);
  masked.resize(utf8_prefix(masked, limit).size());
  return masked;
}

}  // namespace mgw::anthropic
