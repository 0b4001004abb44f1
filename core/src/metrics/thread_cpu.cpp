#include "metrics/thread_cpu.h"

#include "util/proc_stat.h"
#include "util/thread_name.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string_view>

namespace modelgw::metrics {
namespace {

std::string read_small_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::string thread_cpu_label(std::string_view name, bool main) {
  if (main) return "main";
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.remove_suffix(1);
  if (name.rfind("mgw-", 0) != 0) return "other";
  return std::string(util::thread_kind(name));
}

std::vector<std::pair<std::string, double>> thread_cpu_seconds() {
  std::map<std::string, double> kinds;
  const std::string self = std::to_string(::getpid());
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const double cpu = util::stat_cpu_seconds(read_small_file(task.path() / "stat"));
    if (cpu < 0) continue;  // the thread ended meanwhile
    const bool main = task.path().filename() == self;
    kinds[thread_cpu_label(read_small_file(task.path() / "comm"), main)] += cpu;
  }
  return {kinds.begin(), kinds.end()};
}

}  // namespace modelgw::metrics
