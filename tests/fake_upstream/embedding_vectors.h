// The deterministic embedding vectors every vendor route answers with, so
// tests can compare vendors and pin values: the vector of an input depends
// only on the input's text (or, for token ids, its JSON) and the size.
//
//   seed       = FNV-1a 64 of the input's bytes
//   value[k]   = n_k / 10^8 with n_k in (-10^8, 10^8), n_k from splitmix64(seed + k),
//                written as "[-]0.dddddddd" (8 decimals, never an exponent)
//   base64     = the values rounded to float32, little-endian, base64 (RFC 4648),
//                as OpenAI's encoding_format "base64"
#pragma once

#include <string>
#include <string_view>

namespace fake_upstream {

// OpenAI's default size (text-embedding-3-small, ada-002) and Gemini's
// (text-embedding-004).
inline constexpr int kOpenAiDimensions = 1536;
inline constexpr int kGeminiDimensions = 768;

// Appends the vector of `input` as a JSON array of `dimensions` numbers.
void appendVectorFloats(std::string& out, std::string_view input, int dimensions);

// Appends it as a JSON string of base64.
void appendVectorBase64(std::string& out, std::string_view input, int dimensions);

}  // namespace fake_upstream
