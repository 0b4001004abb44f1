#include "isolation.h"

#include "findings.h"

#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string_view>

namespace mgw::testkit {
namespace {

// Records on the pipe: one type byte, a 4-byte length, the bytes.
constexpr char kProblem = 'P';
constexpr char kNote = 'N';
constexpr char kDone = 'D';  // the body returned; its text is the problem count

// The step the child is in, readable by the parent after the child died.
constexpr std::size_t kProgressBytes = 4096;

char* progress_page() {
  static char* page = [] {
    void* p = mmap(nullptr, kProgressBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap of the progress page failed");
    return static_cast<char*>(p);
  }();
  return page;
}

void write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // the parent is gone: nothing left to tell
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

void send(int fd, char type, std::string_view text) {
  const auto len = static_cast<std::uint32_t>(text.size());
  char head[5] = {type};
  std::memcpy(head + 1, &len, 4);
  write_all(fd, head, sizeof head);
  write_all(fd, text.data(), text.size());
}

// The child's end: texts of the first problems and notes, then counts only.
class PipeSink final : public FindingSink {
 public:
  explicit PipeSink(int fd) : fd_(fd) {}
  void problem(std::string_view text) override {
    if (++problems_ <= kKeptProblems) send(fd_, kProblem, text);
  }
  void note(std::string_view text) override {
    if (++notes_ <= kKeptProblems) send(fd_, kNote, text);
  }
  void progress(std::string_view step) override {
    const std::size_t n = std::min(step.size(), kProgressBytes - 1);
    std::memcpy(progress_page(), step.data(), n);
    progress_page()[n] = '\0';
  }
  void done() { send(fd_, kDone, std::to_string(problems_)); }

 private:
  int fd_;
  std::size_t problems_ = 0;
  std::size_t notes_ = 0;
};

[[noreturn]] void child(int fd, const std::function<void()>& body) {
  PipeSink sink(fd);
  set_finding_sink(&sink);
  try {
    body();
  } catch (const std::exception& e) {
    problem(std::string("the check stopped: ") + e.what());
  } catch (...) {
    problem("the check stopped on an exception of unknown type (one thrown by the plugin?)");
  }
  sink.done();
  ::close(fd);
  set_finding_sink(nullptr);
  // exit(), not _exit(): a sanitizer's leak check runs at exit and fails the
  // process (and so this check) when the plugin leaked.
  std::exit(0);
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "killed by signal " + std::to_string(sig) +
           (name != nullptr ? std::string(" (") + name + ")" : "");
  }
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

bool clean_exit(int status) {
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Reads one record; false at the end of the pipe.
bool read_record(int fd, std::string& buffer, char& type, std::string& text) {
  for (;;) {
    if (buffer.size() >= 5) {
      std::uint32_t len = 0;
      std::memcpy(&len, buffer.data() + 1, 4);
      if (buffer.size() >= 5 + static_cast<std::size_t>(len)) {
        type = buffer[0];
        text = buffer.substr(5, len);
        buffer.erase(0, 5 + len);
        return true;
      }
    }
    char chunk[4096];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace

CheckResult run_isolated(const std::function<void()>& body, std::chrono::seconds timeout) {
  progress_page()[0] = '\0';
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  // What is buffered now would otherwise be written twice, once by the child.
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], body);
  }
  ::close(fds[1]);

  CheckResult result;
  bool done = false;
  bool timed_out = false;
  std::string buffer;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    // Data or the end of the pipe: read whatever records are complete.
    char type = 0;
    std::string text;
    if (!read_record(fds[0], buffer, type, text)) break;
    if (type == kProblem) {
      result.problems.push_back(text);
    } else if (type == kNote) {
      result.notes.push_back(text);
    } else if (type == kDone) {
      done = true;
      result.problem_count = std::strtoull(text.c_str(), nullptr, 10);
    }
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  const std::string step = progress_page();
  const std::string while_doing = step.empty() ? "" : " while: " + step;
  if (timed_out) {
    result.verdict = CheckResult::Verdict::timed_out;
    result.death = "did not finish within " + std::to_string(timeout.count()) + " s" + while_doing;
  } else if (!done) {
    result.verdict = CheckResult::Verdict::crashed;
    result.death = "the process died (" + describe_status(status) + ")" + while_doing +
                   " (a sanitizer's report, if any, is on stderr above)";
  } else if (!clean_exit(status)) {
    result.verdict = CheckResult::Verdict::fail;
    result.death = "the check ended, then its process exited with " + describe_status(status) +
                   ": under a sanitizer this is its report at exit, e.g. a leak (see stderr above)";
  } else {
    result.verdict = result.problem_count == 0 ? CheckResult::Verdict::pass : CheckResult::Verdict::fail;
  }
  if (!done) result.problem_count = result.problems.size();
  return result;
}

}  // namespace mgw::testkit
