// Making vendor text safe to pass on: we cannot know what a vendor or a proxy
// in front of it echoes, so anything that looks like a credential is masked
// before it reaches a client or a log.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mgw::anthropic {

// Longest vendor message we pass on, in bytes.
inline constexpr std::size_t kVendorTextLimit = 300;

// A vendor string ready to pass on. In order:
//   - the configured api_key, wherever it appears (when 8+ bytes), → "***";
//   - tokens starting "sk-ant-" or "sk-" keep that prefix, the rest → "***";
//   - the token after "Bearer " → "***";
//   - any other run of 40+ key characters mixing letters and digits → "***";
//   - control characters → spaces, so the text stays one line;
// then cut to at most `limit` bytes without splitting a UTF-8 sequence.
std::string vendor_text(std::string_view raw, std::string_view api_key, std::size_t limit = kVendorTextLimit);

// The longest prefix of `s` of at most `limit` bytes ending on a UTF-8
// character boundary.
std::string_view utf8_prefix(std::string_view s, std::size_t limit) noexcept;

}  // namespace mgw::anthropic
