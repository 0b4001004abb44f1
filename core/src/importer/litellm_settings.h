// LiteLLM's router_settings, litellm_settings, general_settings and
// environment_variables: what each becomes in modelgw. Fallback chains and
// group aliases are collected here and laid out as tiers by litellm_import.
#pragma once

#include "importer/import_report.h"
#include "importer/litellm_deployment.h"
#include "importer/litellm_values.h"
#include "importer/modelgw_draft.h"

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace modelgw::importer {

// One `{group: [fallback groups]}` entry, with where it was written.
struct FallbackChain {
  std::string setting;  // e.g. "router_settings.fallbacks[0]"
  std::string group;
  std::vector<std::string> targets;
  bool context_window = false;  // from context_window_fallbacks
};

struct GroupAlias {
  std::string setting;
  std::string alias;
  std::string group;
  bool hidden = false;
};

struct RoutingSettings {
  DeploymentDefaults defaults;
  std::vector<FallbackChain> chains;
  std::vector<std::string> default_fallbacks;  // groups every other group falls back to
  std::string default_fallbacks_setting;
  std::vector<GroupAlias> aliases;
  std::optional<std::int64_t> num_retries;
  std::string num_retries_setting;
};

// Every literal secret anywhere in the file (values of keys named like
// credentials, environment_variables, database_url, ...) into `secrets`.
void collect_secrets(const YAML::Node& root, SecretBook& secrets);

// The three settings sections (and any unknown top-level key): rows for
// each key, and what goes into the draft (retry, logging, rate limits). Runs
// before the deployments are read (they take `defaults`).
// environment_variables needs the references the deployments made: its rows
// come from report_environment, afterwards.
RoutingSettings read_settings(const YAML::Node& root, Draft& draft, std::vector<ReportRow>& rows);

// Rows for environment_variables and for every variable the written config
// references (the operator sets them in modelgw's environment).
void report_environment(const YAML::Node& root, const SecretBook& secrets, std::vector<ReportRow>& rows);

}  // namespace modelgw::importer
