#include "importer/litellm_import.h"

#include "importer/litellm_deployment.h"
#include "importer/litellm_settings.h"
#include "importer/litellm_values.h"
#include "importer/modelgw_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>

namespace modelgw::importer {
namespace {

// At most `n` printable characters of the input's first non-blank line.
std::string input_prefix(std::string_view text, std::size_t n = 20) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  std::string out;
  for (std::size_t i = start; i < text.size() && out.size() < n && text[i] != '\n' && text[i] != '\r'; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  return out;
}

std::string top_level_keys(const YAML::Node& root) {
  std::string keys;
  std::size_t n = 0;
  for (const auto& kv : root) {
    if (n++ == 5) {
      keys += ", ...";
      break;
    }
    std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (k.size() > 24) k = k.substr(0, 24) + "...";
    keys += (keys.empty() ? "" : ", ") + k;
  }
  return keys;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

std::string provider_key(const DraftProvider& p) {
  std::string k = p.plugin + "\n" + p.base_url + "\n" + p.api_key + "\n" + p.organization + "\n" +
                  std::to_string(p.timeout_ms.value_or(-1)) + "\n" +
                  std::to_string(p.first_byte_timeout_ms.value_or(-1));
  for (const auto& [n, v] : p.headers) k += "\n" + n + ":" + v;
  return k;
}

struct Group {
  std::string name;
  std::vector<Deployment*> deployments;
  std::vector<const FallbackChain*> chains;
  bool tier = false;
  std::vector<std::string> route;  // its tier's route, or its one concrete alias
};

}  // namespace

ImportResult import_litellm(std::string_view text, const ImportOptions& options) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw ImportError("not a LiteLLM config: not valid YAML (line " + std::to_string(e.mark.line + 1) +
                      ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg + ")");
  }
  if (!root.IsMap()) {
    const std::string prefix = input_prefix(text);
    throw ImportError(
        "not a LiteLLM config: its top level is not a mapping" +
        (prefix.empty() ? std::string(" (the file is empty)") : " (it begins \"" + prefix + "\")"));
  }
  if (!child(root, "model_list") && !child(root, "router_settings") && !child(root, "litellm_settings") &&
      !child(root, "general_settings")) {
    throw ImportError(
        "not a LiteLLM config: none of model_list, router_settings, litellm_settings, general_settings at "
        "the top "
        "level (found: " +
        top_level_keys(root) + ")");
  }

  Draft draft;
  draft.plugins_dir = options.plugins_dir;
  draft.state_dir = options.state_dir;
  SecretBook secrets;
  collect_secrets(root, secrets);
  std::vector<ReportRow> settings_rows;
  const RoutingSettings routing = read_settings(root, draft, settings_rows);

  const YAML::Node list = child(root, "model_list");
  if (!list.IsSequence() || list.size() == 0) {
    throw ImportError(
        "nothing to import: model_list is missing or empty (models kept in LiteLLM's database are not read)",
        settings_rows);
  }
  std::vector<ReportRow> rows;
  std::vector<Deployment> deployments;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (auto d = read_deployment(list[i], i, routing.defaults, secrets, rows))
      deployments.push_back(std::move(*d));
  }
  auto scrub_rows = [&](std::vector<ReportRow> found) {
    for (auto& r : found) {
      r.setting = secrets.scrub(r.setting);
      r.detail = secrets.scrub(r.detail);
    }
    return found;
  };
  if (deployments.empty()) {
    rows.insert(rows.end(), settings_rows.begin(), settings_rows.end());
    throw ImportError(
        "nothing to import: no model of model_list can be served by modelgw (the report says why)",
        scrub_rows(std::move(rows)));
  }

  // Providers: one per distinct plugin, URL, key and timeouts.
  std::map<std::string, std::string> provider_names;
  std::set<std::string> used_names;
  for (auto& d : deployments) {
    const std::string key = provider_key(d.provider);
    if (auto it = provider_names.find(key); it != provider_names.end()) {
      d.provider.name = it->second;
      continue;
    }
    std::string name = d.family;
    for (int n = 2; used_names.count(name); ++n) name = d.family + "-" + std::to_string(n);
    used_names.insert(name);
    provider_names[key] = name;
    d.provider.name = name;
    draft.providers.push_back(d.provider);
  }

  // Retries are one setting in modelgw.
  for (const auto& d : deployments) {
    if (!d.max_retries) continue;
    const auto wanted = std::clamp<std::int64_t>(*d.max_retries + 1, 1, 5);
    if (!draft.retry_max_attempts) draft.retry_max_attempts = wanted;
    rows.push_back({d.path + ".litellm_params.max_retries",
                    wanted == *draft.retry_max_attempts ? RowStatus::imported : RowStatus::approximated,
                    "retry.max_attempts is one setting for every model: " +
                        std::to_string(*draft.retry_max_attempts) + " applies" +
                        (wanted == *draft.retry_max_attempts
                             ? ""
                             : " (this deployment asked for " + std::to_string(wanted) + ")")});
  }

  // Model groups, their deployments in the order LiteLLM prefers them.
  std::vector<Group> groups;
  std::map<std::string, std::size_t> group_at;
  for (auto& d : deployments) {
    auto [it, added] = group_at.emplace(d.model_name, groups.size());
    if (added) groups.push_back(Group{d.model_name, {}, {}, false, {}});
    groups[it->second].deployments.push_back(&d);
  }
  for (auto& g : groups) {
    std::stable_sort(g.deployments.begin(), g.deployments.end(),
                     [](const Deployment* a, const Deployment* b) {
                       if (a->order != b->order) return a->order < b->order;
                       if (a->weight != b->weight) return a->weight > b->weight;
                       if (a->rpm != b->rpm) return a->rpm > b->rpm;
                       return a->tpm > b->tpm;
                     });
  }
  std::vector<ReportRow> routing_rows;
  for (const auto& c : routing.chains) {
    auto it = group_at.find(c.group);
    if (it == group_at.end()) {
      routing_rows.push_back({c.setting, RowStatus::unsupported,
                              "'" + c.group + "' is no model_name of an imported deployment; ignored"});
      continue;
    }
    groups[it->second].chains.push_back(&c);
  }
  std::vector<std::string> default_targets;
  for (const auto& t : routing.default_fallbacks) {
    if (group_at.count(t)) default_targets.push_back(t);
  }
  for (auto& g : groups) {
    bool plain_chain = false;
    for (const auto* c : g.chains) plain_chain = plain_chain || !c->context_window;
    const bool defaults =
        !plain_chain && !default_targets.empty() &&
        std::find(default_targets.begin(), default_targets.end(), g.name) == default_targets.end();
    g.tier = g.deployments.size() > 1 || !g.chains.empty() || defaults;
  }

  // Concrete aliases: the group's name, or name@provider inside a tier.
  std::set<std::string> taken;
  for (const auto& g : groups) taken.insert(g.name);
  for (const auto& a : routing.aliases) taken.insert(a.alias);
  for (auto& g : groups) {
    for (auto* d : g.deployments) {
      if (!g.tier) {
        d->model.alias = g.name;
      } else {
        std::string alias = g.name + "@" + d->provider.name;
        for (int n = 2; taken.count(alias); ++n)
          alias = g.name + "@" + d->provider.name + "-" + std::to_string(n);
        taken.insert(alias);
        d->model.alias = alias;
      }
      d->model.provider = d->provider.name;
    }
  }
  auto members = [&](const std::string& group) {
    std::vector<std::string> out;
    for (const auto* d : groups[group_at.at(group)].deployments) out.push_back(d->model.alias);
    return out;
  };
  std::map<std::string, const DraftModel*> model_of;
  for (const auto& d : deployments) model_of[d.model.alias] = &d.model;

  for (auto& g : groups) {
    g.route = members(g.name);
    if (!g.tier) continue;
    std::vector<std::string> dropped;
    auto add_group = [&](const std::string& target) {
      if (target == g.name) return;
      for (const auto& alias : members(target)) {
        if (std::find(g.route.begin(), g.route.end(), alias) != g.route.end()) continue;
        const DraftModel* first = model_of.at(g.route.front());
        const DraftModel* m = model_of.at(alias);
        if (m->kind != first->kind || m->dimensions != first->dimensions) {
          dropped.push_back(alias);
          continue;
        }
        g.route.push_back(alias);
      }
    };
    bool plain_chain = false;
    for (const auto* c : g.chains) {
      if (c->context_window) continue;
      plain_chain = true;
      std::vector<std::string> unknown;
      for (const auto& t : c->targets) {
        if (group_at.count(t))
          add_group(t);
        else
          unknown.push_back(t);
      }
      routing_rows.push_back(
          {c->setting, RowStatus::approximated,
           "tier " + g.name + " tries its deployments, then " + join(c->targets, ", ") +
               ": modelgw moves to the next model after a retryable failure (429, 5xx, connection, timeout) "
               "before "
               "any byte reached the client; LiteLLM after any failure" +
               (unknown.empty() ? "" : "; not imported models left out: " + join(unknown, ", "))});
    }
    if (!plain_chain && !default_targets.empty()) {
      for (const auto& t : default_targets) add_group(t);
    }
    for (const auto* c : g.chains) {
      if (!c->context_window) continue;
      std::vector<std::string> unknown;
      for (const auto& t : c->targets) {
        if (group_at.count(t))
          add_group(t);
        else
          unknown.push_back(t);
      }
      std::string detail = "tier " + g.name + " also holds " + join(c->targets, ", ") +
                           ": a request longer than a model's context_window skips it (modelgw checks before "
                           "calling); these models also serve as ordinary fallbacks";
      for (const auto* d : g.deployments) {
        if (d->model.context_window == 0) {
          detail += "; set catalog." + d->model.alias +
                    ".context_window (model_info.max_input_tokens) so it is skipped";
        }
      }
      if (!unknown.empty()) detail += "; not imported models left out: " + join(unknown, ", ");
      routing_rows.push_back({c->setting, RowStatus::approximated, detail});
    }
    if (g.deployments.size() > 1) {
      routing_rows.push_back(
          {"model_list: model_name " + g.name, RowStatus::approximated,
           std::to_string(g.deployments.size()) + " deployments: tier " + g.name + " tries " +
               join(members(g.name), ", ") +
               " in that order; LiteLLM spreads load across them, modelgw moves to the next only "
               "when one fails"});
    }
    if (!dropped.empty()) {
      routing_rows.push_back(
          {"tier " + g.name, RowStatus::unsupported,
           "left out of the tier (another kind of model, or another vector length): " + join(dropped, ", ")});
    }
    draft.tiers.push_back(DraftTier{g.name, g.route, ""});
  }
  if (!routing.default_fallbacks.empty()) {
    routing_rows.push_back({routing.default_fallbacks_setting, RowStatus::approximated,
                            "appended to the tier of every model group without fallbacks of its own: " +
                                join(default_targets, ", ")});
  }
  for (const auto& a : routing.aliases) {
    if (a.alias == "auto" || a.alias.empty()) {
      routing_rows.push_back({a.setting, RowStatus::unsupported, "'auto' is reserved in modelgw"});
      continue;
    }
    if (group_at.count(a.alias)) {
      routing_rows.push_back(
          {a.setting, RowStatus::unsupported, "'" + a.alias + "' is already a model_name"});
      continue;
    }
    auto it = group_at.find(a.group);
    if (it == group_at.end()) {
      routing_rows.push_back({a.setting, RowStatus::unsupported,
                              "'" + a.group + "' is no model_name of an imported deployment"});
      continue;
    }
    const Group& g = groups[it->second];
    draft.tiers.push_back(DraftTier{a.alias, g.route, "model_group_alias: " + a.alias + " -> " + a.group});
    routing_rows.push_back({a.setting, a.hidden ? RowStatus::approximated : RowStatus::imported,
                            "tier " + a.alias + " routes like " + a.group + " (" + join(g.route, ", ") + ")" +
                                (a.hidden ? "; it is listed in /v1/models (modelgw hides no alias)" : "")});
  }

  // Each deployment's own row, and its catalog entry.
  std::vector<ReportRow> model_rows;
  for (const auto& d : deployments) {
    std::string detail = "catalog " + d.model.alias + ": provider " + d.provider.name + " (" +
                         d.provider.plugin + " plugin, " + d.provider.base_url + "), model " + d.model.model;
    if (!d.notes.empty()) detail += "; " + join(d.notes, "; ");
    model_rows.push_back({d.path + " (" + d.model_name + ")",
                          d.approximated ? RowStatus::approximated : RowStatus::imported, detail});
    draft.models.push_back(d.model);
  }
  model_rows.insert(model_rows.end(), rows.begin(), rows.end());
  model_rows.insert(model_rows.end(), routing_rows.begin(), routing_rows.end());
  model_rows.insert(model_rows.end(), settings_rows.begin(), settings_rows.end());
  report_environment(root, secrets, model_rows);

  ImportResult result;
  result.config_yaml = secrets.scrub(write_modelgw_yaml(draft, options.source_name));
  result.rows = scrub_rows(std::move(model_rows));
  return result;
}

}  // namespace modelgw::importer
