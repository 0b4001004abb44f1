// The values GET /metrics reads from the rest of the gateway at scrape time
// (nothing on the request path): in-flight requests and connections, the
// usage writer's queue and journal, the audit writer's, storage failures,
// and the plugins that were loaded.
#pragma once

#include "audit/audit_log.h"
#include "config/config.h"
#include "http/listener.h"
#include "metrics/registry.h"
#include "plugins/plugin_library.h"
#include "usage/usage_writer.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace modelgw::metrics {

// The (alias, provider) pairs of the configuration's catalog (tiers are
// served by their members, and counted as them).
std::vector<RouteName> catalog_routes(const config::Config& config);

// For a route set being built (start-up, reload): adds its routes to
// `registry` and returns it, for ChatDeps (nullptr stays nullptr).
Registry* add_catalog(Registry* registry, const config::Config& config);

// `audit`: nullptr when no audit log is kept. Each object must outlive `registry`'s scrapes.
void add_gateway_sources(Registry& registry, const usage::UsageWriter& usage, const audit::AuditLog* audit,
                         const http::Listener& listener);

// One modelgw_plugin_info series per loaded shared object.
void add_plugins(Registry& registry,
                 const std::map<std::string, std::shared_ptr<plugins::PluginLibrary>>& libraries);

}  // namespace modelgw::metrics
