// Strict standard-alphabet base64 decoding for the build-time converter.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace modelgw::tokenizer::tools {

// The decoded bytes, or nullopt when `text` is not well-formed padded base64
// (wrong length, a foreign character, padding in the middle). Being strict
// means a corrupted package file fails the build instead of yielding a
// plausible but wrong token.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace modelgw::tokenizer::tools
