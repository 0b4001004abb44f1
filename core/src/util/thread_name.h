// Names for the gateway's threads, as `top -H`, `ps -L`, perf and gdb show
// them (/proc/PID/task/TID/comm): "mgw-loop-0", "mgw-usage", "mgw-blocking",
// ... (docs/ARCHITECTURE.md, "Threading", lists them). Linux keeps at most 15
// bytes of a name; a longer one is cut there.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace modelgw::util {

// Names the calling thread. Best effort: a failure leaves the old name.
void set_thread_name(std::string_view name);

// The calling thread's name ("" when it cannot be read).
std::string thread_name();

// A thread's kind: its name without a trailing "-<digits>" ("mgw-loop-1" is
// "mgw-loop"), so the threads of one job are counted together (the
// `modelgw_thread_cpu_seconds_total` metric, the bench's CPU split).
inline std::string_view thread_kind(std::string_view name) {
  const auto dash = name.find_last_of('-');
  if (dash == std::string_view::npos || dash + 1 == name.size()) return name;
  for (std::size_t i = dash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, dash);
}

// Names the calling thread for its lifetime, then restores the old name: the
// threads a library starts inside that scope (asio::thread_pool's) take the
// name, as Linux copies a creating thread's name to the threads it creates.
class ScopedThreadName {
 public:
  explicit ScopedThreadName(std::string_view name) : old_(thread_name()) { set_thread_name(name); }
  ~ScopedThreadName() { set_thread_name(old_); }
  ScopedThreadName(const ScopedThreadName&) = delete;
  ScopedThreadName& operator=(const ScopedThreadName&) = delete;

 private:
  std::string old_;
};

}  // namespace modelgw::util
