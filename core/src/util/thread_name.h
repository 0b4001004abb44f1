// Names for the gateway's threads, as `top -H`, `ps -L`, perf and gdb show
// them (/proc/PID/task/TID/comm): "mgw-loop-0", "mgw-usage", "mgw-blocking",
// ... (docs/ARCHITECTURE.md, "Threading", lists them). Linux keeps at most 15
// bytes of a name; a longer one is cut there.
#pragma once

#include <string>
#include <string_view>

namespace modelgw::util {

// Names the calling thread. Best effort: a failure leaves the old name.
void set_thread_name(std::string_view name);

// The calling thread's name ("" when it cannot be read).
std::string thread_name();

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
