// The `native_operations` key of a provider's configuration (plugin.h,
// "Native operations"): the APIs besides chat the provider instance serves
// natively, which its on_provider_operations declares. Every in-tree plugin
// reads it the same way; a vendor's plugin can too.
// Header-only C++17; needs nlohmann-json (3.10 or later) and the C++ standard
// library.
#pragma once

#include <modelgw/provider/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace mgw::provider {

// Reads cfg["native_operations"] into `out`: absent or null gives
// `defaults`; otherwise an array of names, each one of `served` (a name given
// twice counts once). Returns false, with `error` set to
// "native_operations…: <problem>" (an unknown name quoted as a printable
// prefix of at most 40 bytes), for another type or an unknown name.
// `provider` names the plugin in the message ("the openai provider").
inline bool read_native_operations(const Json& cfg, const std::vector<std::string_view>& served,
                                   const std::vector<std::string_view>& defaults, std::string_view provider,
                                   std::vector<std::string>& out, std::string& error) {
  out.clear();
  std::string served_list;
  for (std::string_view s : served) served_list.append(served_list.empty() ? "" : ", ").append(s);
  const Json* ops = member(cfg, "native_operations");
  if (ops == nullptr) {
    out.assign(defaults.begin(), defaults.end());
    return true;
  }
  if (!ops->is_array()) {
    error = "native_operations: must be an array of operation names (" + served_list + ")";
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
    if (std::find(served.begin(), served.end(), name) == served.end()) {
      // An operation name is no secret, but it may be anything: quote a printable prefix.
      std::string shown = name.substr(0, 40);
      std::replace_if(
          shown.begin(), shown.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
      error = where + ": '" + shown + "' is not an operation " + std::string(provider) +
              " serves natively (" + served_list + ")";
      return false;
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return true;
}

}  // namespace mgw::provider
