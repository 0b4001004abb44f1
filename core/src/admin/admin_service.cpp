#include "admin/admin_service.h"

#include "admin/tenant_settings.h"
#include "auth/api_key.h"
#include "prompts/prompt_version.h"
#include "prompts/template.h"

#include <algorithm>

namespace modelgw::admin {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(int status, std::string code, std::string message, std::string param = {}) {
  throw AdminError(errors::ApiError{status, std::move(code), std::move(message), std::move(param)});
}

json tenant_json(const plugins::Tenant& t) {
  auto settings = json::parse(t.settings_json, nullptr, false);
  return json{{"object", "tenant"},
              {"id", t.id},
              {"name", t.name},
              {"created_at", t.created_unix_ms / 1000},
              {"settings", settings.is_object() ? settings : json::object()}};
}

json key_json(const plugins::ApiKeyRow& k) {
  json scopes = json::array();
  for (std::size_t i = 0; i < k.scopes.size();) {
    auto j = k.scopes.find(' ', i);
    if (j == std::string::npos) j = k.scopes.size();
    if (j > i) scopes.push_back(k.scopes.substr(i, j - i));
    i = j + 1;
  }
  return json{{"object", "api_key"},
              {"id", k.id},
              {"tenant", k.tenant_name},
              {"prefix", k.display_prefix},
              {"scopes", scopes},
              {"created_at", k.created_unix_ms / 1000},
              {"revoked_at", k.revoked_unix_ms == 0 ? json(nullptr) : json(k.revoked_unix_ms / 1000)}};
}

json list_of(json data) {
  return json{{"object", "list"}, {"data", std::move(data)}};
}

// Parameters a prompt may register: a JSON object of chat parameters. The
// request's own transport and identity members are not parameters.
void check_parameters(const json& parameters) {
  if (!parameters.is_object())
    refuse(400, "invalid_parameter", "'parameters' must be a JSON object", "parameters");
  for (const auto& [name, value] : parameters.items()) {
    const std::string at = "parameters." + errors::input_excerpt(name);
    if (name == "model" || name == "messages" || name == "prompt" || name == "stream" ||
        name == "stream_options") {
      refuse(
          400, "invalid_parameter",
          "'" + at + "' cannot be registered with a prompt" +
              (name == "model" ? std::string("; give it as 'model'") : std::string("; the caller sends it")),
          at);
    }
    if ((name == "max_tokens" || name == "max_completion_tokens") &&
        !(value.is_number_integer() && value.get<std::int64_t>() > 0)) {
      refuse(400, "invalid_parameter", "'" + at + "' must be a positive integer", at);
    }
    if ((name == "temperature" || name == "top_p" || name == "presence_penalty" ||
         name == "frequency_penalty") &&
        !value.is_number()) {
      refuse(400, "invalid_parameter", "'" + at + "' must be a number", at);
    }
  }
}

void check_prompt_name(const std::string& name) {
  if (!prompts::is_prompt_name(name)) {
    refuse(400, "invalid_parameter",
           "prompt name '" + errors::input_excerpt(name) +
               "': use 1-128 letters, digits, '-', '_' or '.', starting with a letter or digit",
           "name");
  }
}

}  // namespace

const std::vector<std::string>& known_scopes() {
  static const std::vector<std::string> scopes = {"chat",         "prompts:read", "usage:read",
                                                  "budgets:read", "audit:read",   "admin"};
  return scopes;
}

void check_tenant_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  }
  if (!ok) {
    refuse(400, "invalid_parameter",
           "tenant name '" + errors::input_excerpt(name) + "': use 1-64 letters, digits, '-', '_' or '.'",
           "name");
  }
}

std::string normalize_scopes(const json& scopes) {
  std::vector<std::string> given;
  if (scopes.is_string()) {
    const auto& text = scopes.get_ref<const std::string&>();
    std::size_t i = 0;
    while (i <= text.size()) {
      auto j = text.find_first_of(" ,", i);
      if (j == std::string::npos) j = text.size();
      if (j > i) given.push_back(text.substr(i, j - i));
      i = j + 1;
    }
  } else if (scopes.is_array()) {
    for (const auto& s : scopes) {
      if (!s.is_string())
        refuse(400, "invalid_parameter", "'scopes' must hold scope names (strings)", "scopes");
      given.push_back(s.get<std::string>());
    }
  } else {
    refuse(400, "invalid_parameter", "'scopes' must be an array of scope names", "scopes");
  }
  std::string normalized;
  for (const auto& known : known_scopes()) {
    if (std::find(given.begin(), given.end(), known) != given.end())
      normalized += (normalized.empty() ? "" : " ") + known;
  }
  for (const auto& one : given) {
    if (std::find(known_scopes().begin(), known_scopes().end(), one) == known_scopes().end()) {
      refuse(400, "invalid_parameter",
             "unknown scope '" + one.substr(0, 64) +
                 "'; known: chat, prompts:read, usage:read, budgets:read, audit:read, admin",
             "scopes");
    }
  }
  if (normalized.empty()) refuse(400, "invalid_parameter", "'scopes' names no scope", "scopes");
  return normalized;
}

plugins::Tenant AdminService::tenant_or_404(const std::string& name) {
  auto tenant = deps_.storage.find_tenant(name);
  if (!tenant) refuse(404, "not_found", "no tenant named '" + errors::input_excerpt(name) + "'", "tenant");
  return *tenant;
}

plugins::ApiKeyRow AdminService::key_or_404(std::int64_t key_id) {
  for (auto& k : deps_.storage.list_api_keys(0)) {
    if (k.id == key_id) return k;
  }
  refuse(404, "not_found", "no API key with id " + std::to_string(key_id), "id");
}

json AdminService::list_tenants() {
  json data = json::array();
  for (const auto& t : deps_.storage.list_tenants()) data.push_back(tenant_json(t));
  return list_of(std::move(data));
}

json AdminService::get_tenant(const std::string& name) {
  return tenant_json(tenant_or_404(name));
}

json AdminService::create_tenant(const Actor& actor, const std::string& name) {
  check_tenant_name(name);
  std::int64_t tenant_id = 0;
  try {
    tenant_id = deps_.storage.create_tenant(name, deps_.now_unix_ms());
  } catch (const plugins::StorageError& e) {
    if (e.status() == MGW_CONFLICT)
      refuse(400, "invalid_parameter", "tenant '" + errors::input_excerpt(name) + "' already exists", "name");
    throw;
  }
  record_change(deps_.audit, actor, tenant_id, "tenant.create", "tenant " + name);
  return get_tenant(name);
}

void AdminService::set_catalog(std::set<std::string> model_aliases, SettingsRules rules) {
  std::lock_guard lock(catalog_mutex_);
  deps_.model_aliases = std::move(model_aliases);
  deps_.settings_rules = std::move(rules);
}

json AdminService::update_settings(const Actor& actor, const std::string& tenant, const json& patch) {
  auto t = tenant_or_404(tenant);
  SettingsRules rules;
  {
    std::lock_guard lock(catalog_mutex_);
    rules = deps_.settings_rules;
  }
  auto merged = merge_settings(json::parse(t.settings_json, nullptr, false), patch, rules);
  if (!deps_.storage.set_tenant_settings(t.id, merged.dump())) {
    refuse(404, "not_found", "no tenant named '" + errors::input_excerpt(tenant) + "'", "tenant");
  }
  if (deps_.gate != nullptr) deps_.gate->forget(tenant);
  std::string members;
  for (const auto& [name, value] : patch.items()) members += (members.empty() ? "" : ",") + name;
  record_change(deps_.audit, actor, t.id, "tenant.settings", "tenant " + tenant + " (" + members + ")");
  return get_tenant(tenant);
}

json AdminService::list_keys(const std::string& tenant) {
  std::int64_t tenant_id = tenant.empty() ? 0 : tenant_or_404(tenant).id;
  json data = json::array();
  for (const auto& k : deps_.storage.list_api_keys(tenant_id)) data.push_back(key_json(k));
  return list_of(std::move(data));
}

json AdminService::mint_key(const Actor& actor, const plugins::Tenant& tenant, const std::string& scopes,
                            const char* action, std::int64_t replaces) {
  plugins::ApiKeyRow row;
  const std::string key = auth::mint_api_key();
  row.tenant_id = tenant.id;
  row.tenant_name = tenant.name;
  row.key_hash = auth::hash_api_key(key);
  row.display_prefix = auth::display_prefix(key);
  row.scopes = scopes;
  row.created_unix_ms = deps_.now_unix_ms();
  row.id = deps_.storage.create_api_key(row);
  record_change(deps_.audit, actor, tenant.id, action,
                "key " + std::to_string(row.id) + " of tenant " + tenant.name +
                    (replaces > 0 ? " replacing key " + std::to_string(replaces) : std::string()));
  json out = key_json(row);
  out["key"] = key;  // the only time it is ever shown
  return out;
}

json AdminService::create_key(const Actor& actor, const std::string& tenant, const json& scopes) {
  auto t = tenant_or_404(tenant);
  return mint_key(actor, t, normalize_scopes(scopes.is_null() ? json("chat") : scopes), "key.create", 0);
}

json AdminService::revoke_key(const Actor& actor, std::int64_t key_id) {
  const auto key = key_or_404(key_id);
  deps_.storage.revoke_api_key(key_id, deps_.now_unix_ms());
  record_change(deps_.audit, actor, key.tenant_id, "key.revoke", "key " + std::to_string(key_id));
  return key_json(key_or_404(key_id));
}

json AdminService::rotate_key(const Actor& actor, std::int64_t key_id) {
  auto old = key_or_404(key_id);
  if (old.revoked_unix_ms != 0) {
    refuse(400, "invalid_parameter",
           "key " + std::to_string(key_id) + " is revoked; create a new key instead", "id");
  }
  plugins::Tenant tenant;
  tenant.id = old.tenant_id;
  tenant.name = old.tenant_name;
  // The new key exists before the old one stops working, so a caller that
  // switches as soon as it has the answer is never locked out.
  json fresh = mint_key(actor, tenant, old.scopes, "key.rotate", key_id);
  deps_.storage.revoke_api_key(key_id, deps_.now_unix_ms());
  fresh["replaces"] = key_id;
  return fresh;
}

json AdminService::list_prompts(const std::string& tenant) {
  auto t = tenant_or_404(tenant);
  // One entry per prompt: its active version, and how many versions it has.
  json data = json::array();
  std::string current;
  std::int64_t versions = 0;
  json active;
  auto flush = [&] {
    if (current.empty()) return;
    active["versions"] = versions;
    data.push_back(std::move(active));
  };
  for (const auto& row : deps_.storage.list_prompt_versions(t.id, "")) {
    if (row.name != current) {
      flush();
      current = row.name;
      versions = 0;
      active = json();
    }
    ++versions;
    if (row.active) active = prompts::to_json(prompts::from_row(row));
  }
  flush();
  return list_of(std::move(data));
}

json AdminService::get_prompt(const std::string& tenant, const std::string& name) {
  auto t = tenant_or_404(tenant);
  check_prompt_name(name);
  json versions = json::array();
  for (const auto& row : deps_.storage.list_prompt_versions(t.id, name)) {
    versions.push_back(prompts::to_json(prompts::from_row(row)));
  }
  if (versions.empty()) {
    refuse(404, "prompt_not_found",
           "tenant '" + errors::input_excerpt(tenant) + "' has no prompt named '" +
               errors::input_excerpt(name) + "'",
           "name");
  }
  return list_of(std::move(versions));
}

json AdminService::add_prompt_version(const Actor& actor, const std::string& tenant, const std::string& name,
                                      const json& spec) {
  auto t = tenant_or_404(tenant);
  check_prompt_name(name);
  if (!spec.is_object()) refuse(400, "invalid_json", "the prompt version must be a JSON object");
  for (const auto& [member, value] : spec.items()) {
    if (member != "template" && member != "model" && member != "parameters" && member != "activate") {
      refuse(400, "invalid_parameter",
             "'" + errors::input_excerpt(member) +
                 "' is not a member of a prompt version (template, model, parameters, activate)",
             errors::input_excerpt(member, 128));
    }
  }
  auto tmpl = spec.find("template");
  if (tmpl == spec.end()) {
    refuse(400, "missing_required_field", "'template' is required: an array of chat messages", "template");
  }
  auto checked = prompts::check_template(*tmpl);
  if (auto* e = std::get_if<prompts::TemplateError>(&checked)) {
    refuse(400, "invalid_parameter", e->path + ": " + e->message, e->path);
  }
  auto model = spec.find("model");
  if (model == spec.end() || !model->is_string() || model->get_ref<const std::string&>().empty()) {
    refuse(400, "missing_required_field", "'model' is required: the catalog alias the prompt runs with",
           "model");
  }
  bool known = false;
  {
    std::lock_guard lock(catalog_mutex_);
    known = deps_.model_aliases.count(model->get<std::string>()) != 0;
  }
  if (!known) {
    refuse(404, "model_not_found",
           "model '" + model->get<std::string>().substr(0, 64) +
               "' is not in the catalog; GET /v1/models lists them",
           "model");
  }
  json parameters = spec.value("parameters", json::object());
  if (parameters.is_null()) parameters = json::object();
  check_parameters(parameters);
  auto activate = spec.find("activate");
  if (activate != spec.end() && !activate->is_boolean()) {
    refuse(400, "invalid_parameter", "'activate' must be true or false", "activate");
  }

  plugins::PromptVersionRow row;
  row.tenant_id = t.id;
  row.name = name;
  row.template_json = tmpl->dump();
  row.model = model->get<std::string>();
  row.parameters_json = parameters.dump();
  row.created_unix_ms = deps_.now_unix_ms();
  const bool make_active = activate != spec.end() && activate->get<bool>();
  const std::int64_t version = deps_.storage.create_prompt_version(row, make_active);
  if (deps_.prompts != nullptr) deps_.prompts->forget(t.id, name);
  record_change(deps_.audit, actor, t.id, "prompt.version.create",
                "prompt " + tenant + "/" + name + " v" + std::to_string(version));
  auto stored = deps_.storage.find_prompt_version(t.id, name, version);
  if (!stored) refuse(500, "internal_error", "the new prompt version could not be read back");
  return prompts::to_json(prompts::from_row(*stored));
}

json AdminService::activate_prompt_version(const Actor& actor, const std::string& tenant,
                                           const std::string& name, std::int64_t version) {
  auto t = tenant_or_404(tenant);
  check_prompt_name(name);
  if (version < 1) refuse(400, "invalid_parameter", "a version number is a positive integer", "version");
  if (!deps_.storage.activate_prompt_version(t.id, name, version)) {
    refuse(404, "prompt_not_found",
           "tenant '" + errors::input_excerpt(tenant) + "' has no prompt '" + errors::input_excerpt(name) +
               "' version " + std::to_string(version),
           "version");
  }
  if (deps_.prompts != nullptr) deps_.prompts->forget(t.id, name);
  record_change(deps_.audit, actor, t.id, "prompt.activate",
                "prompt " + tenant + "/" + name + " v" + std::to_string(version));
  auto stored = deps_.storage.find_prompt_version(t.id, name, version);
  if (!stored) refuse(500, "internal_error", "the prompt version could not be read back");
  return prompts::to_json(prompts::from_row(*stored));
}

}  // namespace modelgw::admin
