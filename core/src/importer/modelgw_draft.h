// The modelgw configuration an import builds, as plain data, before it is
// written out as YAML (modelgw_yaml.h). Values that may reference the
// environment (base URLs, keys, headers) hold ready YAML scalar text such as
// "${OPENAI_API_KEY}"; every other string is a literal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace modelgw::importer {

struct DraftProvider {
  std::string name;
  std::string plugin;                                        // openai, anthropic, gemini
  std::string base_url;                                      // may hold ${VAR} / ${VAR:-default}
  std::string api_key;                                       // "${VAR}" or "" (no key)
  std::string organization;                                  // "${VAR}" or a literal; "" none
  std::vector<std::pair<std::string, std::string>> headers;  // name, value ("${VAR}")
  std::optional<std::int64_t> timeout_ms;
  std::optional<std::int64_t> first_byte_timeout_ms;
  std::string note;  // a comment above the block
};

struct DraftPrices {
  std::int64_t input = 0;  // micro-USD per million tokens
  std::int64_t output = 0;
};

struct DraftModel {
  std::string alias;
  std::string provider;
  std::string model;
  std::string kind = "chat";  // chat or embedding
  std::int64_t dimensions = 0;
  std::int64_t max_inputs = 0;  // 0: the default
  std::int64_t context_window = 0;
  std::int64_t max_output_tokens = 0;
  std::string tokenizer;  // "": not written (estimate)
  std::optional<DraftPrices> prices;
  bool drop_unsupported_params = false;
  std::string note;
};

struct DraftTier {
  std::string alias;
  std::vector<std::string> route;
  std::string note;
};

struct Draft {
  std::string listen = "127.0.0.1:4000";  // LiteLLM's port: clients keep their base URL's port
  std::string plugins_dir;
  std::string state_dir;
  std::optional<std::int64_t> retry_max_attempts;
  std::optional<std::int64_t> retry_base_ms;
  std::optional<std::int64_t> key_requests_per_minute;
  std::optional<std::int64_t> key_tokens_per_minute;
  std::string logging_level;  // "": the default
  std::vector<DraftProvider> providers;
  std::vector<DraftModel> models;
  std::vector<DraftTier> tiers;
};

}  // namespace modelgw::importer
