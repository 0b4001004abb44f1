// One version of a named prompt, parsed: what the store keeps in memory and
// what invocation and the endpoints read.
#pragma once

#include "plugins/storage.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace modelgw::prompts {

struct PromptVersion {
  std::int64_t tenant_id = 0;
  std::string name;
  std::int64_t version = 0;
  bool active = false;
  nlohmann::json template_messages;  // checked by check_template when registered
  std::vector<std::string> variables;
  std::string model;
  nlohmann::json parameters = nlohmann::json::object();
  std::int64_t created_unix_ms = 0;
};

// Parses a stored row. Throws std::runtime_error when the row does not hold
// what registration wrote (a damaged or hand-edited database).
PromptVersion from_row(const plugins::PromptVersionRow& row);

// The public shape (GET /v1/prompts/{name}, the internal surface, the CLI):
// {"object":"prompt","name","version","active","template","variables","model",
//  "parameters","created_at"}; created_at in Unix seconds, as OpenAI's objects.
nlohmann::json to_json(const PromptVersion& prompt);

// A prompt name: 1-128 of letters, digits, '-', '_' and '.', starting with a
// letter or digit; it is a path segment, so nothing needs escaping.
bool is_prompt_name(const std::string& name);

}  // namespace modelgw::prompts
