// The "embeddings" operation (ABI 1.11) as every provider answers it: what
// the client's request asked for (read from the member index the host gives
// on_parse_response too) and the OpenAI list the answer becomes, written with
// each vector's text spliced in as it is, never parsed into doubles.
// Header-only C++17; needs only plugin.h and the C++ standard library.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/provider/json_scan.hpp>
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mgw::provider {

// What the request of an embeddings call asked for.
struct EmbeddingsAsked {
  // How many inputs it held; nullopt when the host gave no member index.
  std::optional<std::size_t> inputs;
  // encoding_format "base64"; otherwise floats.
  bool base64 = false;
};

// Reads "input" and "encoding_format" from call.members. A host that gives no
// index (older than 1.11 at on_parse_response) leaves both at their defaults.
inline EmbeddingsAsked embeddings_asked(const mgw_call_context& call) {
  EmbeddingsAsked asked;
  if (!MGW_HAS_FIELD(&call, mgw_call_context, member_count) || call.members == nullptr) return asked;
  for (std::size_t i = 0; i < call.member_count; ++i) {
    const std::string_view name = view(call.members[i].name);
    const std::string_view value = view(call.members[i].value);
    if (name == "encoding_format") {
      asked.base64 = json_scan::plain_string(value) == std::string_view("base64");
    } else if (name == "input") {
      std::size_t n = 0;
      if (json_scan::for_each_element(value, [&n](std::string_view) {
            ++n;
            return true;
          })) {
        asked.inputs = n;
      } else if (value.size() > 0 && value.front() == '"') {
        asked.inputs = 1;  // the host promises an array; a lone string is still one input
      }
    }
  }
  return asked;
}

// {"object":"list","data":[{"object":"embedding","index":i,"embedding":<vectors[i]>},...],
//  "model":<alias>,"usage":{"prompt_tokens":P,"total_tokens":P}}: each vector
// is JSON text (an array of numbers, or a base64 string) copied as it is.
inline std::string embeddings_list_json(const std::vector<std::string_view>& vectors,
                                        std::string_view alias_json, int64_t prompt_tokens) {
  std::size_t total = 128 + alias_json.size();
  for (const std::string_view v : vectors) total += v.size() + 48;
  std::string out;
  out.reserve(total);
  out += R"({"object":"list","data":[)";
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    if (i > 0) out += ',';
    out += R"({"object":"embedding","index":)";
    out += std::to_string(i);
    out += R"(,"embedding":)";
    out += vectors[i];
    out += '}';
  }
  out += R"(],"model":)";
  out += alias_json;
  const std::string tokens = std::to_string(prompt_tokens < 0 ? 0 : prompt_tokens);
  out += R"(,"usage":{"prompt_tokens":)";
  out += tokens;
  out += R"(,"total_tokens":)";
  out += tokens;
  out += "}}";
  return out;
}

// Usage of an embeddings call: prompt tokens only.
inline mgw_usage embeddings_usage(int64_t prompt_tokens) noexcept {
  mgw_usage u{};
  u.struct_size = sizeof u;
  u.prompt_tokens = prompt_tokens < 0 ? 0 : prompt_tokens;
  u.total_tokens = u.prompt_tokens;
  return u;
}

}  // namespace mgw::provider
