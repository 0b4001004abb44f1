#include "capacity/system_limits.h"

#include <sys/resource.h>

#include <fstream>

namespace modelgw::capacity {
namespace {

// One or two integers from a /proc/sys file; false when it cannot be read.
bool read_proc_ints(const char* path, long& first, long& second) {
  std::ifstream in(path);
  if (!(in >> first)) return false;
  if (!(in >> second)) second = first;
  return true;
}

}  // namespace

SystemLimits read_system_limits() {
  SystemLimits limits;
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    limits.open_files = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur;
    limits.open_files_hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max;
  }
  long a = 0;
  long b = 0;
  if (read_proc_ints("/proc/sys/net/core/somaxconn", a, b)) limits.somaxconn = static_cast<int>(a);
  if (read_proc_ints("/proc/sys/net/ipv4/ip_local_port_range", a, b) && b >= a) {
    limits.ephemeral_ports = static_cast<int>(b - a + 1);
  }
  return limits;
}

SystemLimits limits_for_serve() {
  SystemLimits limits = read_system_limits();
  if (limits.open_files_hard > limits.open_files) limits.open_files = limits.open_files_hard;
  return limits;
}

SystemLimits raise_open_file_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &raised);  // on failure the old limit stands and is reported
  }
  return read_system_limits();
}

}  // namespace modelgw::capacity
