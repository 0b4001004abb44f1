// A child process with its stdout and stderr drained on threads, so it never
// blocks on a full pipe, and a test can wait (boundedly) for what it prints.
// The destructor always ends and reaps the child: SIGTERM, then SIGKILL. A
// child is also killed (PR_SET_PDEATHSIG) when the test process dies without
// running destructors: an abort, a signal, ctest's kill at its timeout.
#pragma once

#include <Poco/Pipe.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace it {

using Clock = std::chrono::steady_clock;
using Env = std::map<std::string, std::string>;

// Reads one pipe until EOF on its own thread; optionally copies to a file.
class PipeDrain {
 public:
  PipeDrain(Poco::Pipe pipe, std::string copy_path);
  ~PipeDrain();
  PipeDrain(const PipeDrain&) = delete;
  PipeDrain& operator=(const PipeDrain&) = delete;

  std::string text() const;
  // Waits until the text contains `needle`, the pipe closes or the time is up.
  bool wait_for(const std::string& needle, std::chrono::milliseconds timeout) const;
  // Waits until the writer side is closed (the child exited).
  bool wait_closed(std::chrono::milliseconds timeout) const;

 private:
  void run();

  Poco::Pipe pipe_;
  std::string copy_path_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::string text_;
  bool closed_ = false;
  std::thread thread_;
};

class ChildProcess {
 public:
  // stderr_copy: when not empty, stderr is also appended to this file.
  ChildProcess(const std::string& program, const std::vector<std::string>& args, const Env& env = {},
               const std::string& stderr_copy = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int pid() const { return pid_; }
  std::string out() const { return out_->text(); }
  std::string err() const { return err_->text(); }
  const PipeDrain& stdout_drain() const { return *out_; }
  const PipeDrain& stderr_drain() const { return *err_; }

  // The exit code (256 + signal when killed by one), if it has exited.
  std::optional<int> try_wait();
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  void send_signal(int sig) const;
  // SIGTERM, up to `grace` for an exit, then SIGKILL. Returns the exit code,
  // or -1 when it had to be killed. Safe to call again: returns the same.
  int stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  int pid_ = 0;
  std::optional<int> exit_code_;
  std::unique_ptr<PipeDrain> out_;
  std::unique_ptr<PipeDrain> err_;
};

struct RunResult {
  int exit_code = -1;  // -1: did not finish in time and was killed
  std::string out;
  std::string err;
};

// Runs a program to completion (killed after `timeout`), capturing its output.
// The first executable `program` in $PATH, or "" when there is none.
std::string find_on_path(const std::string& program);

RunResult run_to_exit(const std::string& program, const std::vector<std::string>& args, const Env& env = {},
                      std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace it
