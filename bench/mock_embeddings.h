// The bench mock upstream's embeddings answer (POST /v1/embeddings), without
// I/O: one fixed OpenAI list of vectors, built once at start-up and sent for
// every request whatever it asks, so the mock's own cost per answer is a
// write of the same bytes and the proxies in front of it relay all of them.
#pragma once

#include <cstddef>
#include <string>

namespace bench::mock {

// The answer's shape, which scenario (f) sizes its request and the gateway's
// embedding alias by: the gateway refuses an answer with another count of
// vectors than the request's inputs.
inline constexpr std::size_t kEmbeddingVectors = 100;
inline constexpr std::size_t kEmbeddingDimensions = 1536;
inline constexpr const char* kEmbeddingModel = "text-embedding-3-small";

// A complete response (head and Content-Length framed body):
// {"object":"list","data":[{"object":"embedding","index":i,"embedding":[...]},...],
//  "model":..., "usage":{"prompt_tokens":N,"total_tokens":N}}. The numbers are
// pseudo-random (a fixed seed) float32 values of a unit-length vector's size,
// printed as OpenAI prints them (shortest round-trip text, e.g. -0.012345679),
// about 1.9 MB for 100 x 1,536.
std::string embeddings_response(std::size_t vectors, std::size_t dimensions, std::size_t prompt_tokens);

}  // namespace bench::mock
