// POST /v1/embeddings, OpenAI's shape: the checks on a parsed body, and the
// request a provider is sent for one batch of its inputs (plugin.h,
// "embeddings").
#pragma once

#include "errors/api_error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace modelgw::embeddings {

struct EmbeddingsRequest {
  std::string model;
  // Always an array: of strings, or of token arrays (`tokens`). A single
  // string or token array sent alone is wrapped, as OpenAI reads it.
  nlohmann::json input;
  bool tokens = false;
  std::string encoding_format = "float";  // "float" or "base64"
  std::optional<std::int64_t> dimensions;
  std::optional<std::string> user;
};

// The most inputs one request may hold (OpenAI's own limit per call is
// 2,048; the gateway splits by the model's max_inputs, so it takes more, up to
// this bound on the work one request can ask for).
inline constexpr std::size_t kMaxInputs = 16'384;

// The body's checks: every error names the member ("input[3]").
std::variant<EmbeddingsRequest, errors::ApiError> check_embeddings_request(nlohmann::json doc);

// The request for inputs [from, from + count) as the provider takes it.
std::string batch_body(const EmbeddingsRequest& request, std::size_t from, std::size_t count);

}  // namespace modelgw::embeddings
