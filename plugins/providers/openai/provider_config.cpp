#include "provider_config.h"

#include "native_operations.h"

namespace mgw::openai {

using namespace mgw::provider;

std::optional<ProviderConfig> parse_config(std::string_view json, std::string& error) {
  const std::optional<Json> cfg = parse_config_object(json, error);
  if (!cfg) {
    return std::nullopt;
  }
  ProviderConfig out;
  std::string organization;
  std::string project;
  if (!read_api_key(*cfg, out.api_key, error) ||
      !read_header_string(*cfg, "organization", organization, error) ||
      !read_header_string(*cfg, "project", project, error)) {
    return std::nullopt;
  }
  if (!out.api_key.empty()) {
    out.headers.push_back(HeaderLine{"Authorization", "Bearer " + out.api_key});
  }
  out.headers.push_back(HeaderLine{"Content-Type", "application/json"});
  if (!organization.empty()) {
    out.headers.push_back(HeaderLine{"OpenAI-Organization", std::move(organization)});
  }
  if (!project.empty()) {
    out.headers.push_back(HeaderLine{"OpenAI-Project", std::move(project)});
  }
  if (!read_extra_headers(*cfg, out.headers, out.custom_accept, error) ||
      !read_native_operations(*cfg, out.native_operations, error)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace mgw::openai
