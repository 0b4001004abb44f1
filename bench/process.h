// Process control for the benchmark: child processes (spawn, read a line,
// stop with SIGTERM then SIGKILL), one-shot commands, a temporary directory,
// the open-files limit and /proc sampling. Every wait here is bounded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench {

// A long-running child. stdin is /dev/null, stderr goes to a file, stdout to
// a pipe this side can read lines from (or to the stderr file).
class ChildProcess {
 public:
  ChildProcess(const std::string& exe, const std::vector<std::string>& args, const std::string& stderr_path,
               bool pipe_stdout);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }

  // One line of stdout without the newline; nullopt on EOF or timeout.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  // False once the child has exited (its status is then kept).
  bool running();
  // SIGTERM, up to `grace` for an exit, then SIGKILL. Returns the exit status
  // as a text ("exit 0", "signal 9", "killed after 10000 ms").
  std::string stop(std::chrono::milliseconds grace);

 private:
  std::string name_;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  bool exited_ = false;
  int status_ = 0;
};

struct CommandResult {
  int exit_code = -1;  // -1: killed for taking too long or by a signal
  std::string out;
  std::string err;
};

// Runs a command to completion (killed after `timeout`), capturing both outputs.
CommandResult run_command(const std::string& exe, const std::vector<std::string>& args,
                          std::chrono::milliseconds timeout);

// mkdtemp under $TMPDIR (or /tmp); removed by the destructor unless kept.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// Raises the soft RLIMIT_NOFILE to at least `wanted` (children inherit it):
// to the hard limit, and past it (up to fs.nr_open) when the process may
// raise hard limits (root, CAP_SYS_RESOURCE). Returns the new soft limit.
std::uint64_t raise_fd_limit(std::uint64_t wanted = 0);

// A port on 127.0.0.1 that was free a moment ago (bind to 0, read, close).
std::uint16_t pick_free_port();

struct ProcSample {
  long threads = 0;
  long rss_kib = 0;
  double cpu_s = 0;  // user + system since start
};
// Reads /proc/PID/status and /proc/PID/stat; zeros if the process is gone.
ProcSample sample_process(pid_t pid);

// CPU seconds (user + system) of the process's threads, summed by thread
// name with a trailing "-<digits>" left off ("mgw-loop-0" and "mgw-loop-1"
// are "mgw-loop"): where a proxy's CPU goes. Empty if the process is gone.
std::map<std::string, double> sample_thread_cpu(pid_t pid);

// TCP counters from /proc/net/netstat (TcpExt), for the whole network
// namespace: other processes' connections count too.
struct TcpCounters {
  long listen_overflows = 0;  // connections dropped because a listen (accept) queue was full
  long listen_drops = 0;
  long syn_retrans = 0;  // SYN/SYN-ACK retransmissions, e.g. after such drops
};
TcpCounters read_tcp_counters();

// The last `max_lines` lines of a text file (for failure reports).
std::string tail_file(const std::filesystem::path& path, std::size_t max_lines);

}  // namespace bench
