#include "harness/process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace it {

using namespace std::chrono_literals;

PipeDrain::PipeDrain(Poco::Pipe pipe, std::string copy_path)
    : pipe_(std::move(pipe)), copy_path_(std::move(copy_path)), thread_([this] { run(); }) {}

PipeDrain::~PipeDrain() {
  // The owner reaps the child first, so the write end is closed and the
  // blocking read returns 0; closing our read end covers any other case.
  if (thread_.joinable()) thread_.join();
}

void PipeDrain::run() {
  std::ofstream copy;
  if (!copy_path_.empty()) copy.open(copy_path_, std::ios::binary | std::ios::app);
  char buffer[8192];
  while (true) {
    int n = 0;
    try {
      n = pipe_.readBytes(buffer, sizeof buffer);
    } catch (...) {
      n = 0;
    }
    if (n <= 0) break;
    if (copy.is_open()) {
      copy.write(buffer, n);
      copy.flush();
    }
    std::lock_guard lock(mutex_);
    text_.append(buffer, static_cast<std::size_t>(n));
    changed_.notify_all();
  }
  pipe_.close(Poco::Pipe::CLOSE_READ);
  std::lock_guard lock(mutex_);
  closed_ = true;
  changed_.notify_all();
}

std::string PipeDrain::text() const {
  std::lock_guard lock(mutex_);
  return text_;
}

bool PipeDrain::wait_for(const std::string& needle, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return closed_ || text_.find(needle) != std::string::npos; });
  return text_.find(needle) != std::string::npos;
}

bool PipeDrain::wait_closed(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return closed_; });
}

namespace {

// The exit code of a wait status: the code, or 256 + the signal that killed it.
int exit_code(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 256 + WTERMSIG(wait_status);
}

// The test's environment with `overrides` set on top, as "NAME=value" lines.
std::vector<std::string> child_environment(const Env& overrides) {
  Env all;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view line(*entry);
    const auto eq = line.find('=');
    if (eq != std::string_view::npos)
      all.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  for (const auto& [name, value] : overrides) all[name] = value;
  std::vector<std::string> lines;
  lines.reserve(all.size());
  for (const auto& [name, value] : all) lines.push_back(name + "=" + value);
  return lines;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args, const Env& env,
                           const std::string& stderr_copy) {
  Poco::Pipe out;
  Poco::Pipe err;
  // Everything the child needs is built before fork: between fork and exec it
  // may only make async-signal-safe calls (other threads may hold locks).
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = child_environment(env);
  const std::vector<char*> argv = pointers(argv_strings);
  const std::vector<char*> envp = pointers(env_strings);
  const int out_fd = out.writeHandle();
  const int err_fd = err.writeHandle();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork " + program);
  if (pid == 0) {
    // Killed with this process, however it dies (an abort, SIGSEGV, ctest's
    // SIGKILL at its timeout), so no gateway or fake outlives a crashed test.
    // If the parent died before prctl took effect, getppid() already differs.
    // The signal follows the launching thread: children are launched from
    // the test's own thread, which lives as long as the process.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    if (::dup2(out_fd, STDOUT_FILENO) < 0 || ::dup2(err_fd, STDERR_FILENO) < 0) ::_exit(127);
    // Only stdin, stdout and stderr are inherited.
    if (::close_range(3, ~0U, 0) != 0) {
      for (long fd = 3, open_max = ::sysconf(_SC_OPEN_MAX); fd < open_max && fd < 65536; ++fd)
        ::close(static_cast<int>(fd));
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  pid_ = pid;
  out.close(Poco::Pipe::CLOSE_WRITE);
  err.close(Poco::Pipe::CLOSE_WRITE);
  out_ = std::make_unique<PipeDrain>(out, std::string());
  err_ = std::make_unique<PipeDrain>(err, stderr_copy);
}

ChildProcess::~ChildProcess() {
  stop(5s);
  out_.reset();  // joins the drains: the child is gone, so both pipes end
  err_.reset();
}

std::optional<int> ChildProcess::try_wait() {
  if (exit_code_) return exit_code_;
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
  exit_code_ = exit_code(status);
  return exit_code_;
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    if (auto code = try_wait()) return code;
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(10ms);
  }
}

void ChildProcess::send_signal(int sig) const {
  if (!exit_code_ && pid_ > 0) ::kill(pid_, sig);
}

int ChildProcess::stop(std::chrono::milliseconds grace) {
  if (try_wait()) return *exit_code_;
  send_signal(SIGTERM);
  if (auto code = wait_exit(grace)) return *code;
  send_signal(SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }  // reaps; SIGKILL cannot be ignored
  exit_code_ = -1;
  return -1;
}

RunResult run_to_exit(const std::string& program, const std::vector<std::string>& args, const Env& env,
                      std::chrono::milliseconds timeout) {
  ChildProcess child(program, args, env);
  RunResult result;
  if (auto code = child.wait_exit(timeout)) {
    result.exit_code = *code;
  } else {
    child.stop(1s);
    result.exit_code = -1;
  }
  // After the exit the pipes close; wait (boundedly) for the last bytes.
  child.stdout_drain().wait_closed(5s);
  child.stderr_drain().wait_closed(5s);
  result.out = child.out();
  result.err = child.err();
  return result;
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
  }
  return {};
}

}  // namespace it
