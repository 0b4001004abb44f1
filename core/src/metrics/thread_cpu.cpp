#include "metrics/thread_cpu.h"

#include "util/proc_stat.h"
#include "util/thread_name.h"

#include <unistd.h>

#include <map>

namespace modelgw::metrics {

std::string thread_cpu_label(std::string_view name, bool main) {
  if (main) return "main";
  if (name.rfind("mgw-", 0) != 0) return "other";
  return std::string(util::thread_kind(name));
}

std::vector<std::pair<std::string, double>> thread_cpu_seconds() {
  std::map<std::string, double> kinds;
  const std::string self = std::to_string(::getpid());
  util::for_each_thread_cpu("self", [&](const std::string& tid, const std::string& name, double cpu) {
    kinds[thread_cpu_label(name, tid == self)] += cpu;
  });
  return {kinds.begin(), kinds.end()};
}

}  // namespace modelgw::metrics
