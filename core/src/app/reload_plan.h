// What a configuration reload may change, and what needs a restart. The
// routing (providers, catalog, prices, PII modes and defaults, rate-limit
// defaults, retry) is rebuilt; the listen address, storage, plugins_dir,
// event loops, auth, usage, idempotency, audit, logging and budget settings
// are bound into running machinery and stay as they started.
#pragma once

#include "config/config.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace modelgw::app {

// The configuration file as JSON (after ${ENV} substitution), to tell later
// which restart-only sections a reload changed; null when it cannot be read.
nlohmann::json read_config_tree(const std::string& path);

// The restart-only sections whose text differs between `running_tree` and
// `next_tree` (e.g. "server", "storage"); `next` (and `next_tree`) get the
// running values of every restart-only section, changed or not.
std::vector<std::string> keep_restart_only(const config::Config& running, const nlohmann::json& running_tree,
                                           config::Config& next, nlohmann::json& next_tree);

}  // namespace modelgw::app
