// A C++ plugin whose code instantiates libstdc++ templates: their weak
// symbols are exported by default even with hidden visibility, so only the
// SDK's version script keeps the .so down to the entry symbol.
#include <modelgw/plugin.h>

#include <map>
#include <string>

namespace {

const mgw_plugin_descriptor* describe(const mgw_host_api* host) {
  static const std::map<std::string, std::string> names = {{"name", "consumer"}, {"version", "0.0.1"}};
  static const mgw_plugin_descriptor descriptor = {
      sizeof(mgw_plugin_descriptor), MGW_ABI_MAJOR, MGW_ABI_MINOR, MGW_KIND_PII, names.at("name").c_str(),
      names.at("version").c_str(),   nullptr};
  return host != nullptr && host->abi_major == MGW_ABI_MAJOR ? &descriptor : nullptr;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry(
    const mgw_host_api* host) {
  return describe(host);
}
