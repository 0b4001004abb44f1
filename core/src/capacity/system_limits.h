// What the machine allows a process holding many streams: its open-file limit
// (raised from soft to hard at start-up), the listen backlog the kernel keeps,
// and the ephemeral ports for connections towards one upstream address.
#pragma once

#include <cstdint>

namespace modelgw::capacity {

struct SystemLimits {
  std::uint64_t open_files = 0;       // RLIMIT_NOFILE soft limit, the one enforced; 0: unknown
  std::uint64_t open_files_hard = 0;  // its hard limit; 0: unknown
  int somaxconn = 0;                  // net.core.somaxconn; 0: unknown
  int ephemeral_ports = 0;            // size of net.ipv4.ip_local_port_range; 0: unknown
};

// Reads the limits of this process and machine (/proc, getrlimit). Never throws.
SystemLimits read_system_limits();

// The limits `serve` would run with if started like this process: the soft
// open-file limit raised to the hard one (see raise_open_file_limit).
SystemLimits limits_for_serve();

// Raises the soft open-file limit to the hard one, as every long-lived proxy
// must: the soft default (1,024) holds about 500 streams. Returns the limits
// as they stand afterwards. Never throws.
SystemLimits raise_open_file_limit();

}  // namespace modelgw::capacity
