// Making vendor text safe to pass on: we cannot know what a vendor echoes
// (an error message may quote a key, a token or a URL with ?key=…), so
// anything that looks like a credential is masked before it reaches a client
// or a log.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mgw::gemini {

// Longest vendor message we pass on, in bytes.
inline constexpr std::size_t kVendorMessageLimit = 300;

// Masks, in `text`:
//   - the configured api_key itself, wherever it appears (when 8+ bytes long);
//   - tokens with a known key prefix: AIza… → "AIza***" (Google API keys),
//     also ya29. (Google OAuth tokens), sk-, sk_, gsk_, xai-, hf_;
//   - the token after "Bearer ";
//   - any other run of 40+ key characters mixing letters and digits.
// Control characters become spaces so a message stays one line.
std::string mask_secrets(std::string_view text, std::string_view api_key);

// A vendor message ready to pass on: trimmed of surrounding whitespace, masked, then cut to at most `limit`
// bytes without splitting a UTF-8 sequence.
std::string vendor_text(std::string_view raw, std::string_view api_key,
                        std::size_t limit = kVendorMessageLimit);

// The longest prefix of `s` of at most `limit` bytes that ends on a UTF-8
// character boundary.
std::string_view utf8_prefix(std::string_view s, std::size_t limit) noexcept;

}  // namespace mgw::gemini
