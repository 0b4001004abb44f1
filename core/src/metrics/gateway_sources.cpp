#include "metrics/gateway_sources.h"

#include "metrics/thread_cpu.h"
#include "plugins/storage_failure.h"

#include <string_view>

namespace modelgw::metrics {

std::vector<RouteName> catalog_routes(const config::Config& config) {
  std::vector<RouteName> routes;
  for (const auto& [alias, entry] : config.catalog) {
    if (!entry.is_tier()) routes.push_back(RouteName{alias, entry.provider});
  }
  return routes;
}

Registry* add_catalog(Registry* registry, const config::Config& config) {
  if (registry != nullptr) registry->add_routes(catalog_routes(config));
  return registry;
}

void add_gateway_sources(Registry& registry, const usage::UsageWriter& usage, const audit::AuditLog* audit,
                         const http::Listener& listener) {
  registry.add_source("modelgw_http_requests_in_flight",
                      "HTTP requests inside a handler now (every endpoint).", "gauge",
                      [&listener] { return static_cast<double>(listener.in_flight()); });
  registry.add_source("modelgw_http_connections_open", "Client connections being served now.", "gauge",
                      [&listener] { return static_cast<double>(listener.open_connections()); });
  registry.add_source("modelgw_usage_queue_depth", "Usage records waiting in memory to be stored.", "gauge",
                      [&usage] { return static_cast<double>(usage.status().queued); });
  registry.add_source("modelgw_usage_journal_records",
                      "Usage records in the local journal, waiting for storage to take them.", "gauge",
                      [&usage] { return static_cast<double>(usage.status().journal_records); });
  registry.add_source("modelgw_usage_journal_bytes", "Size of the local usage journal.", "gauge",
                      [&usage] { return static_cast<double>(usage.status().journal_bytes); });
  registry.add_source("modelgw_usage_records_written_total",
                      "Usage records stored since start, replays included.", "counter",
                      [&usage] { return static_cast<double>(usage.status().written); });
  registry.add_source("modelgw_usage_recording",
                      "1 while usage can be recorded (chat is served), 0 while it cannot.", "gauge",
                      [&usage] { return usage.recording() ? 1.0 : 0.0; });
  registry.add_source("modelgw_storage_unavailable_errors_total",
                      "Storage calls that failed because the backend could not be reached.", "counter",
                      [] { return static_cast<double>(plugins::storage_failures_unavailable()); });
  registry.add_source("modelgw_storage_errors_total",
                      "Storage calls that failed otherwise (internal errors, unreadable answers).", "counter",
                      [] { return static_cast<double>(plugins::storage_failures_other()); });
  registry.add_labelled_source(
      "modelgw_thread_cpu_seconds_total",
      "CPU time (user and system) of the gateway's threads by kind: mgw-loop the event loops, mgw-usage the "
      "usage writer, mgw-blocking the blocking pool, ...",
      "counter", "thread", [] { return thread_cpu_seconds(); });
  if (audit != nullptr) {
    registry.add_source("modelgw_audit_queue_depth", "Audit events waiting to be stored.", "gauge",
                        [audit] { return static_cast<double>(audit->status().queued); });
    registry.add_source("modelgw_audit_events_dropped_total", "Audit events dropped (queue full).", "counter",
                        [audit] { return static_cast<double>(audit->status().dropped); });
  }
}

void add_plugins(Registry& registry,
                 const std::map<std::string, std::shared_ptr<plugins::PluginLibrary>>& libraries) {
  for (const auto& [file, library] : libraries) {
    const auto& d = library->descriptor();
    const char* version = d.version != nullptr ? d.version : "";
    registry.add_plugin(plugins::kind_name(d.kind), library->name(), version,
                        std::to_string(d.abi_major) + "." + std::to_string(d.abi_minor));
  }
}

}  // namespace modelgw::metrics
