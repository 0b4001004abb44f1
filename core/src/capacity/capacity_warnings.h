// Whether a configuration can hold what it promises on this machine: open
// streams need a client socket, an upstream socket and the file descriptors
// for both. Start-up logs these warnings and `modelgw check-config` prints
// them; neither refuses to run, since a smaller machine may be intended.
#pragma once

#include "capacity/system_limits.h"
#include "config/config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace modelgw::capacity {

// Descriptors besides client and upstream sockets: listener, storage,
// journal, plugins' files, keyset fetches, logs.
inline constexpr std::uint64_t kReservedFiles = 256;
// The listen backlog the listener asks for (http/listener.cpp).
inline constexpr int kListenBacklog = 4096;

// Open files the configuration may use at once.
std::uint64_t open_files_needed(const config::Config& config);

// One line per limit that would cut the configuration short; empty when none.
std::vector<std::string> capacity_warnings(const config::Config& config, const SystemLimits& limits);

}  // namespace modelgw::capacity
