// Prompt templates: chat messages whose text holds {{variable}} placeholders.
// Checked once when a version is registered; filled on every invocation.
//
// Syntax: "{{" optional spaces, a name of letters, digits and '_' (not starting
// with a digit, at most 64 characters), optional spaces, "}}". A "{{" that is
// not closed, or that holds anything else, is an error at registration; a lone
// "}}" is plain text. Values are inserted as plain text in one pass, so a value
// that itself contains "{{x}}" is never expanded again.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace modelgw::prompts {

struct TemplateError {
  std::string path;     // where, e.g. "template[1].content"
  std::string message;  // what is wrong, for a person
};

// Checks `messages` (a JSON array of chat messages: role, and content as a
// string or an array of content parts) and returns the variable names in
// order of first use, each once.
std::variant<std::vector<std::string>, TemplateError> check_template(const nlohmann::json& messages);

// A variable the template uses and the caller did not give.
struct MissingVariable {
  std::string name;
};

// The messages with every placeholder replaced by its value. The template must
// have passed check_template.
std::variant<nlohmann::json, MissingVariable> fill_template(const nlohmann::json& messages,
                                                            const std::map<std::string, std::string>& values);

// True for a name a placeholder may use.
bool is_variable_name(std::string_view name);

}  // namespace modelgw::prompts
