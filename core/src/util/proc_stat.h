// A process's threads and their CPU time, from procfs
// (/proc/<pid>/task/<tid>/stat and comm). Header-only: the bench (which does
// not link the core) reads its proxy's threads the same way as the
// gateway's /metrics reads its own.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

namespace modelgw::util {

// A small procfs file whole ("" when it cannot be read).
inline std::string read_proc_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// utime + stime of a stat line, in seconds; -1 when the text is not one.
inline double stat_cpu_seconds(std::string_view text) {
  // The fields after the name (which may hold spaces and parentheses) start
  // after the last ')': state is field 3, utime 14, stime 15.
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return -1;
  std::istringstream fields{std::string(text.substr(close + 1))};
  std::string field;
  double ticks = 0;
  for (int n = 3; n <= 15 && fields >> field; ++n) {
    if (n >= 14) ticks += std::strtod(field.c_str(), nullptr);
    if (n == 15) return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  return -1;
}

// Calls fn(tid, name, cpu_seconds) for each thread of `process` ("self", or
// a pid), its name without comm's line end. A thread that ends while it is
// read is skipped; a process that is gone has no threads.
template <class Fn>
void for_each_thread_cpu(const std::string& process, Fn&& fn) {
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + process + "/task", ec)) {
    const double cpu = stat_cpu_seconds(read_proc_file(task.path() / "stat"));
    if (cpu < 0) continue;
    std::string name = read_proc_file(task.path() / "comm");
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    fn(task.path().filename().string(), name, cpu);
  }
}

}  // namespace modelgw::util
