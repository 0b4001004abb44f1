#include "prompts/prompt_version.h"

#include "prompts/template.h"

#include <stdexcept>

namespace modelgw::prompts {

PromptVersion from_row(const plugins::PromptVersionRow& row) {
  PromptVersion p;
  p.tenant_id = row.tenant_id;
  p.name = row.name;
  p.version = row.version;
  p.active = row.active;
  p.model = row.model;
  p.created_unix_ms = row.created_unix_ms;
  p.template_messages = nlohmann::json::parse(row.template_json, nullptr, false);
  p.parameters = nlohmann::json::parse(row.parameters_json, nullptr, false);
  auto checked = check_template(p.template_messages);
  if (p.template_messages.is_discarded() || p.parameters.is_discarded() || !p.parameters.is_object() ||
      std::holds_alternative<TemplateError>(checked)) {
    throw std::runtime_error("stored prompt '" + row.name + "' version " + std::to_string(row.version) +
                             " is damaged (its template or parameters do not parse)");
  }
  p.variables = std::get<std::vector<std::string>>(std::move(checked));
  return p;
}

nlohmann::json to_json(const PromptVersion& p) {
  return nlohmann::json{{"object", "prompt"},
                        {"name", p.name},
                        {"version", p.version},
                        {"active", p.active},
                        {"template", p.template_messages},
                        {"variables", p.variables},
                        {"model", p.model},
                        {"parameters", p.parameters},
                        {"created_at", p.created_unix_ms / 1000}};
}

bool is_prompt_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) return false;
  for (char c : name) {
    if (!(alnum(c) || c == '-' || c == '_' || c == '.')) return false;
  }
  return true;
}

}  // namespace modelgw::prompts
