// The checks a plugin's descriptor and hook table pass before the host uses
// them, on the descriptor in memory: the loader runs them right after the entry
// call, and the unit tests and the loader fuzzer run them without a shared
// object. Order matters (plugin.h, "Versioning"): the major version is read
// before any size is trusted, and sizes are compared with the frozen ABI 1.0
// sizes, never with this host's sizeof, so a 1.0 plugin loads into a 1.4 host.
#pragma once

#include <modelgw/plugin.h>

#include <string>

namespace modelgw::plugins {

// Throws PluginError "<where>: ..." when `d` cannot be used as a plugin of
// `expected_kind`. `d` may be NULL (the plugin refused this host).
void check_descriptor(const std::string& where, const mgw_plugin_descriptor* d,
                      mgw_plugin_kind expected_kind);

// The plugin's hook table as this host lays it out: the bytes the plugin's
// struct_size covers, then zeros, so a hook a newer minor added is NULL when
// the plugin is older. struct_size keeps the plugin's value.
template <typename Hooks>
Hooks copy_hooks(const void* table) {
  Hooks out{};
  const auto* plugin = static_cast<const Hooks*>(table);
  const std::size_t n = plugin->struct_size < sizeof(Hooks) ? plugin->struct_size : sizeof(Hooks);
  __builtin_memcpy(static_cast<void*>(&out), table, n);
  return out;
}

}  // namespace modelgw::plugins
