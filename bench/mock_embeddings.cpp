#include "mock_embeddings.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace bench::mock {
namespace {

// xorshift64*: the same vectors in every run, without <random>'s
// implementation-defined distributions.
class Numbers {
 public:
  // About normal (the sum of four uniforms), with the spread of a unit
  // vector's components: sigma = 1 / sqrt(dimensions).
  float next(double sigma) {
    double sum = 0;
    for (int i = 0; i < 4; ++i) sum += uniform();
    // Four uniforms on [-1, 1) have a variance of 4/3.
    return static_cast<float>(sum * sigma * std::sqrt(3.0) / 2.0);
  }

 private:
  double uniform() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    const std::uint64_t r = state_ * 0x2545F4914F6CDD1DULL;
    return static_cast<double>(r >> 11) / static_cast<double>(1ULL << 52) - 1.0;
  }
  std::uint64_t state_ = 0x9E3779B97F4A7C15ULL;
};

}  // namespace

std::string embeddings_response(std::size_t vectors, std::size_t dimensions, std::size_t prompt_tokens) {
  Numbers numbers;
  const double sigma = 1.0 / std::sqrt(static_cast<double>(dimensions == 0 ? 1 : dimensions));
  std::string body = R"({"object":"list","data":[)";
  body.reserve(vectors * dimensions * 13 + 256);
  char text[32];
  for (std::size_t v = 0; v < vectors; ++v) {
    if (v > 0) body += ',';
    body += R"({"object":"embedding","index":)" + std::to_string(v) + R"(,"embedding":[)";
    for (std::size_t d = 0; d < dimensions; ++d) {
      if (d > 0) body += ',';
      // Shortest text that reads back as the same float32, as OpenAI's are.
      const auto end = std::to_chars(text, text + sizeof text, numbers.next(sigma)).ptr;
      body.append(text, end);
    }
    body += "]}";
  }
  body += R"(],"model":")" + std::string(kEmbeddingModel) + R"(","usage":{"prompt_tokens":)" +
          std::to_string(prompt_tokens) + R"(,"total_tokens":)" + std::to_string(prompt_tokens) + "}}";
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace bench::mock
