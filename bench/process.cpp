#include "process.h"

#include "util/proc_stat.h"    // header-only: the bench does not link the core
#include "util/thread_name.h"  // thread_kind, likewise

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// argv for posix_spawn; the strings live in `args`.
std::vector<char*> make_argv(const std::string& exe, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return argv;
}

// Spawns exe with stdin from /dev/null and the given fds as stdout/stderr
// (dup2'd in the child). Signals the child does not expect to be ignored or
// blocked (SIGPIPE is ignored here) are reset to their defaults.
pid_t spawn(const std::string& exe, const std::vector<std::string>& args, int out_fd, int err_fd) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  auto argv = make_argv(exe, args);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start " + exe + ": " + std::strerror(rc));
  return pid;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

ChildProcess::ChildProcess(const std::string& exe, const std::vector<std::string>& args,
                           const std::string& stderr_path, bool pipe_stdout)
    : name_(std::filesystem::path(exe).filename().string()) {
  const int err_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (err_fd < 0) throw std::runtime_error(errno_text("cannot create " + stderr_path));
  int pipe_fds[2] = {-1, -1};
  if (pipe_stdout && ::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(err_fd);
    throw std::runtime_error(errno_text("pipe"));
  }
  try {
    pid_ = spawn(exe, args, pipe_stdout ? pipe_fds[1] : err_fd, err_fd);
  } catch (...) {
    ::close(err_fd);
    if (pipe_stdout) {
      ::close(pipe_fds[0]);
      ::close(pipe_fds[1]);
    }
    throw;
  }
  ::close(err_fd);
  if (pipe_stdout) {
    ::close(pipe_fds[1]);
    stdout_fd_ = pipe_fds[0];
  }
}

ChildProcess::~ChildProcess() {
  stop(std::chrono::seconds(10));
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

std::optional<std::string> ChildProcess::read_line(std::chrono::milliseconds timeout) {
  if (stdout_fd_ < 0) return std::nullopt;
  const auto deadline = Clock::now() + timeout;
  std::string line;
  while (line.size() < 4096) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd pfd{stdout_fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 100)));
    if (ready < 0 && errno != EINTR) return std::nullopt;
    if (ready <= 0) continue;
    char c = 0;
    const ssize_t n = ::read(stdout_fd_, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return std::nullopt;
    if (c == '\n') return line;
    line.push_back(c);
  }
  return line;
}

bool ChildProcess::running() {
  if (exited_ || pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    exited_ = true;
    status_ = status;
    return false;
  }
  return r == 0;
}

std::string ChildProcess::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return "not started";
  if (!running()) return describe_status(status_);
  ::kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + grace;
  while (Clock::now() < deadline) {
    if (!running()) return describe_status(status_);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);  // SIGKILL cannot be ignored: this returns
  exited_ = true;
  status_ = status;
  return "killed after " + std::to_string(grace.count()) + " ms";
}

CommandResult run_command(const std::string& exe, const std::vector<std::string>& args,
                          std::chrono::milliseconds timeout) {
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe"));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    throw std::runtime_error(errno_text("pipe"));
  }
  pid_t pid = -1;
  try {
    pid = spawn(exe, args, out[1], err[1]);
  } catch (...) {
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    throw;
  }
  ::close(out[1]);
  ::close(err[1]);
  CommandResult result;
  const auto deadline = Clock::now() + timeout;
  bool out_open = true;
  bool err_open = true;
  bool timed_out = false;
  while (out_open || err_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfds[2] = {{out_open ? out[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}};
    const int ready = ::poll(pfds, 2, static_cast<int>(std::min<long long>(left, 100)));
    if (ready <= 0) continue;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (pfds[i].fd < 0 || pfds[i].revents == 0) continue;
      const ssize_t n = ::read(pfds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        (i == 0 ? out_open : err_open) = false;
      }
    }
  }
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  if (timed_out) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    result.err += "\n(killed after " + std::to_string(timeout.count()) + " ms)";
    return result;
  }
  // Both pipes closed: the child has exited or is about to; still bounded.
  const auto wait_deadline = Clock::now() + std::chrono::seconds(5);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > wait_deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" + prefix + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error(errno_text("mkdtemp " + templ));
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::uint64_t raise_fd_limit(std::uint64_t wanted) {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
  if (wanted > rl.rlim_max) {
    std::uint64_t nr_open = 1048576;
    std::ifstream("/proc/sys/fs/nr_open") >> nr_open;
    rlimit raised{};
    raised.rlim_cur = raised.rlim_max = static_cast<rlim_t>(std::min<std::uint64_t>(wanted, nr_open));
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) return static_cast<std::uint64_t>(raised.rlim_cur);
  }
  if (rl.rlim_cur < rl.rlim_max) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  return static_cast<std::uint64_t>(rl.rlim_cur);
}

std::uint16_t pick_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(errno_text("socket"));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error(errno_text("bind 127.0.0.1:0"));
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::map<std::string, double> sample_thread_cpu(pid_t pid) {
  // Threads of one kind summed together, by the gateway's own rule
  // ("mgw-loop-0" is "mgw-loop"; util/thread_name.h).
  std::map<std::string, double> groups;
  modelgw::util::for_each_thread_cpu(std::to_string(pid),
                                     [&](const std::string&, const std::string& name, double cpu) {
                                       groups[std::string(modelgw::util::thread_kind(name))] += cpu;
                                     });
  return groups;
}

ProcSample sample_process(pid_t pid) {
  ProcSample s;
  const std::string dir = "/proc/" + std::to_string(pid);
  {
    std::ifstream status(dir + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("Threads:", 0) == 0) s.threads = std::strtol(line.c_str() + 8, nullptr, 10);
      if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = std::strtol(line.c_str() + 6, nullptr, 10);
    }
  }
  s.cpu_s = std::max(0.0, modelgw::util::stat_cpu_seconds(modelgw::util::read_proc_file(dir + "/stat")));
  return s;
}

TcpCounters read_tcp_counters() {
  TcpCounters c;
  std::ifstream in("/proc/net/netstat");
  std::string names;
  std::string values;
  while (std::getline(in, names) && std::getline(in, values)) {
    if (names.rfind("TcpExt:", 0) != 0) continue;
    std::istringstream n(names);
    std::istringstream v(values);
    std::string name;
    std::string value;
    while (n >> name && v >> value) {
      const long x = std::strtol(value.c_str(), nullptr, 10);
      if (name == "ListenOverflows") c.listen_overflows = x;
      if (name == "ListenDrops") c.listen_drops = x;
      if (name == "TCPSynRetrans") c.syn_retrans = x;
    }
  }
  return c;
}

std::string tail_file(const std::filesystem::path& path, std::size_t max_lines) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace bench
