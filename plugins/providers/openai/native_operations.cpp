#include "native_operations.h"

#include <modelgw/plugin.h>
#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/native_operations.hpp>

#include <array>

namespace mgw::openai {

using namespace mgw::provider;

namespace {

constexpr std::array<std::string_view, 2> kServed = {MGW_OPERATION_RESPONSES, MGW_OPERATION_EMBEDDINGS};

constexpr std::string_view kOpenAiHost = "api.openai.com";

}  // namespace

bool is_openai_base_url(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (url.size() < kScheme.size() || !iequals(url.substr(0, kScheme.size()), kScheme)) {
    return false;
  }
  url.remove_prefix(kScheme.size());
  const std::string_view host = url.substr(0, url.find_first_of(":/?#"));
  if (iequals(host, kOpenAiHost)) {
    return true;
  }
  // A regional endpoint such as eu.api.openai.com.
  return host.size() > kOpenAiHost.size() + 1 && host[host.size() - kOpenAiHost.size() - 1] == '.' &&
         iequals(host.substr(host.size() - kOpenAiHost.size()), kOpenAiHost);
}

bool read_native_operations(const Json& cfg, std::vector<std::string>& out, std::string& error) {
  // OpenAI-compatible servers serve /embeddings as OpenAI does (the host
  // sends the operation only for catalog entries of kind "embedding"), but
  // often lack /responses.
  std::vector<std::string_view> defaults;
  const Json* base_url = member(cfg, "base_url");
  if (base_url != nullptr && base_url->is_string() &&
      is_openai_base_url(base_url->get_ref<const std::string&>()))
    defaults.emplace_back(MGW_OPERATION_RESPONSES);
  defaults.emplace_back(MGW_OPERATION_EMBEDDINGS);
  const std::vector<std::string_view> served(kServed.begin(), kServed.end());
  return provider::read_native_operations(cfg, served, defaults, "the openai provider", out, error);
}

}  // namespace mgw::openai
