#include "catalog/parameter_support.h"

#include "catalog/parameters.h"

namespace modelgw::catalog {

ParameterSupport derive_parameter_support(const config::CatalogEntry& entry,
                                          const plugins::Provider& provider) {
  ParameterSupport out;
  const auto& declared = provider.parameters();
  if (!declared) {
    // A plugin older than ABI 1.4 says nothing: the catalog's word stands.
    out.supports.insert(entry.supports.begin(), entry.supports.end());
    return out;
  }
  std::map<std::string, const plugins::ParamSpec*, std::less<>> by_name;
  for (const auto& p : *declared) by_name[p.name] = &p;
  const auto mapped = [&](std::string_view name) {
    auto it = by_name.find(name);
    return it != by_name.end() && it->second->handling == MGW_PARAM_MAPPED;
  };
  if (entry.supports_listed) {
    for (const auto& name : entry.supports) {
      if (!mapped(name)) {
        throw config::ConfigError("catalog." + entry.alias + ".supports: '" + name +
                                  "' is not a parameter the '" + provider.plugin_name() +
                                  "' plugin of provider '" + provider.name() +
                                  "' maps; remove it from the list");
      }
      out.supports.insert(name);
    }
  } else {
    for (const auto& p : *declared) {
      if (p.handling == MGW_PARAM_MAPPED && is_known_parameter(p.name)) out.supports.insert(p.name);
    }
  }
  for (const auto& p : *declared) {
    if (p.handling == MGW_PARAM_DROPPED && !out.supports.contains(p.name)) out.plugin_drops.insert(p.name);
    if (p.min <= p.max && out.supports.contains(p.name)) out.ranges[p.name] = {p.min, p.max};
  }
  return out;
}

}  // namespace modelgw::catalog
