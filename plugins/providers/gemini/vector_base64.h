// encoding_format "base64" for a vendor that has only floats (Gemini): the
// vector as little-endian IEEE-754 float32, base64 (RFC 4648, padded), the
// form OpenAI's embeddings API sends.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mgw::gemini {

// `"<base64>"` (a JSON string) for `values`, the text of an array of
// numbers; each number is rounded to the nearest float32 (one past float's
// range becomes an infinity, as a cast would). nullopt when `values` is not
// an array of numbers.
std::optional<std::string> float32_base64_json(std::string_view values);

// Standard base64 with padding.
std::string base64_encode(std::string_view bytes);

}  // namespace mgw::gemini
