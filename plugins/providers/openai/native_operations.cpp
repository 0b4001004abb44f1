#include "native_operations.h"

#include <modelgw/plugin.h>
#include <modelgw/provider/ascii.hpp>

#include <algorithm>
#include <array>

namespace mgw::openai {

using namespace mgw::provider;

namespace {

constexpr std::array<std::string_view, 2> kServed = {MGW_OPERATION_RESPONSES, MGW_OPERATION_EMBEDDINGS};

constexpr std::string_view kOpenAiHost = "api.openai.com";

bool served(std::string_view name) {
  return std::find(kServed.begin(), kServed.end(), name) != kServed.end();
}

std::string served_list() {
  std::string out;
  for (std::string_view s : kServed) {
    out += out.empty() ? "" : ", ";
    out += s;
  }
  return out;
}

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
  out.clear();
  const Json* ops = member(cfg, "native_operations");
  if (ops == nullptr) {
    const Json* base_url = member(cfg, "base_url");
    if (base_url != nullptr && base_url->is_string() &&
        is_openai_base_url(base_url->get_ref<const std::string&>())) {
      out.emplace_back(MGW_OPERATION_RESPONSES);
    }
    // OpenAI-compatible servers serve /embeddings as OpenAI does, and the host
    // sends the operation only for catalog entries of kind "embedding".
    out.emplace_back(MGW_OPERATION_EMBEDDINGS);
    return true;
  }
  if (!ops->is_array()) {
    error = "native_operations: must be an array of operation names (" + served_list() + ")";
    return false;
  }
  for (std::size_t i = 0; i < ops->size(); ++i) {
    const Json& op = (*ops)[i];
    const std::string where = "native_operations[" + std::to_string(i) + "]";
    if (!op.is_string()) {
      error = where + ": must be a string";
      return false;
    }
    const std::string& name = op.get_ref<const std::string&>();
    if (!served(name)) {
      // An operation name is no secret, but it may be anything: quote a printable prefix.
      std::string shown = name.substr(0, 40);
      std::replace_if(
          shown.begin(), shown.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
      error = where + ": '" + shown + "' is not an operation the openai provider serves natively (" +
              served_list() + ")";
      return false;
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return true;
}

}  // namespace mgw::openai
