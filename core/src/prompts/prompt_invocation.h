// A chat request that names a prompt: {"prompt": {"name", "version"?,
// "variables"?}} (OpenAI's Responses API spells the name "id"; both are
// accepted). Expansion resolves the version, fills the template, puts its
// messages before the request's own, and applies the registered model and
// parameters where the request does not set them. The result is an ordinary
// chat body, validated like any other afterwards.
#pragma once

#include "errors/api_error.h"
#include "prompts/prompt_store.h"

#include <nlohmann/json.hpp>

#include <string>
#include <variant>

namespace modelgw::prompts {

struct Expansion {
  nlohmann::json doc;  // the chat body to serve, without "prompt"
  std::string body;    // the same, serialized
  std::string name;
  std::int64_t version = 0;
};

// True when the parsed body carries a "prompt" member (of any type).
bool names_prompt(const nlohmann::json& body);

// Expands `body` (a JSON object with a "prompt" member) for `tenant_id`.
// Errors: 400 for a malformed prompt object, 404 prompt_not_found, 422
// prompt_variable_missing with param prompt.variables.NAME.
std::variant<Expansion, errors::ApiError> expand_prompt(nlohmann::json body, std::int64_t tenant_id,
                                                        PromptStore& store);

}  // namespace modelgw::prompts
