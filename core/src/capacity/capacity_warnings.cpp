#include "capacity/capacity_warnings.h"

namespace modelgw::capacity {

std::uint64_t open_files_needed(const config::Config& config) {
  // A client connection holds one upstream connection at a time, but a pool
  // keeps the connections its streams ended on (idle, for reuse), so every
  // provider may hold its whole cap at once.
  std::uint64_t upstream = 0;
  for (const auto& p : config.providers) upstream += static_cast<std::uint64_t>(p.max_connections);
  return static_cast<std::uint64_t>(config.server.max_connections) + upstream + kReservedFiles;
}

std::vector<std::string> capacity_warnings(const config::Config& config, const SystemLimits& limits) {
  std::vector<std::string> out;
  const std::uint64_t need = open_files_needed(config);
  const std::uint64_t limit = limits.open_files;
  if (limit != 0 && limit < need) {
    out.push_back("the open-file limit is " + std::to_string(limit) + " but server.max_connections (" +
                  std::to_string(config.server.max_connections) +
                  ") plus the providers' max_connections need about " + std::to_string(need) +
                  "; past the limit new connections wait: raise LimitNOFILE (systemd) or `ulimit -n`, or "
                  "lower server.max_connections");
  }
  for (const auto& p : config.providers) {
    if (p.max_connections_set && p.max_connections < config.server.max_connections) {
      out.push_back("providers." + p.name + ".max_connections is " + std::to_string(p.max_connections) +
                    ", below server.max_connections (" + std::to_string(config.server.max_connections) +
                    "): requests to it past " + std::to_string(p.max_connections) +
                    " at once (each open stream holds one) wait up to connect_timeout_ms for a connection, "
                    "then fail with 503");
    }
    if (limits.ephemeral_ports != 0 && p.max_connections > limits.ephemeral_ports) {
      out.push_back("providers." + p.name + ".max_connections is " + std::to_string(p.max_connections) +
                    " but net.ipv4.ip_local_port_range gives " + std::to_string(limits.ephemeral_ports) +
                    " ports towards one upstream address: widen the range to hold that many streams");
    }
  }
  if (limits.somaxconn != 0 && limits.somaxconn < kListenBacklog) {
    out.push_back("net.core.somaxconn is " + std::to_string(limits.somaxconn) +
                  ", below the listen backlog (" + std::to_string(kListenBacklog) +
                  "): a burst of new connections overflows it and waits in TCP's retransmit back-off (1 s, "
                  "3 s, ...); raise it with sysctl");
  }
  return out;
}

}  // namespace modelgw::capacity
