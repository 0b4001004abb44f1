// One entry of LiteLLM's model_list (a "deployment") read into what modelgw
// needs: the provider block it calls through and the catalog model it is.
#pragma once

#include "importer/import_report.h"
#include "importer/litellm_values.h"
#include "importer/modelgw_draft.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace modelgw::importer {

// Settings that apply to every deployment unless it sets its own.
struct DeploymentDefaults {
  std::optional<std::int64_t> timeout_ms;  // router_settings.timeout / litellm_settings.request_timeout
  std::optional<std::int64_t> first_byte_timeout_ms;  // router_settings.stream_timeout
  bool drop_params = false;                           // litellm_settings.drop_params
};

struct Deployment {
  std::size_t index = 0;
  std::string path;        // "model_list[3]"
  std::string model_name;  // LiteLLM's public name: the model group
  std::string family;      // the provider's name stem: openai, anthropic, gemini, azure, groq, ...
  DraftProvider provider;  // name left empty: given when providers are merged
  DraftModel model;        // alias and provider left empty: given when groups are laid out
  std::optional<std::int64_t> max_retries;
  // How LiteLLM ranks the deployments of one group; modelgw tries them in order.
  double order = std::numeric_limits<double>::infinity();
  double weight = 0;
  double rpm = 0;
  double tpm = 0;
  // For the deployment's own report row: how it is served, and whether that
  // is only close to what LiteLLM does.
  std::vector<std::string> notes;
  bool approximated = false;
};

// The deployment at model_list[index], or nullopt (with an "unsupported" row)
// when modelgw cannot serve it. Rows about its settings go to `rows`; literal
// secrets to `secrets`.
std::optional<Deployment> read_deployment(const YAML::Node& entry, std::size_t index,
                                          const DeploymentDefaults& defaults, SecretBook& secrets,
                                          std::vector<ReportRow>& rows);

}  // namespace modelgw::importer
