// A test process that dies without running its destructors (an uncaught
// exception's abort, a signal, ctest's SIGTERM or SIGKILL at its timeout)
// leaves no gateway or fake upstream running: the harness's children are
// killed with it (PR_SET_PDEATHSIG).
#include "harness/stack.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

// Whether `pid` no longer runs: reaped here (this test is the orphans'
// subreaper), not there at all, or a zombie.
bool gone(pid_t pid) {
  int status = 0;
  const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
  if (reaped == pid) return true;
  if (reaped == 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto name_end = line.rfind(')');
  return name_end != std::string::npos && line.size() > name_end + 2 && line[name_end + 2] == 'Z';
}

// One line from `fd`, waiting at most until `deadline`; "" when none came.
std::string read_line(int fd, Clock::time_point deadline) {
  std::string line;
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left <= 0ms) return {};
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[256];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return {};
    line.append(buffer, static_cast<std::size_t>(n));
  }
  return line.substr(0, line.find('\n'));
}

// In a forked child: start a stack, report "<fake pid> <gateway pid> <dir>",
// then wait to be killed. Never returns into the test runner.
[[noreturn]] void own_a_stack(int report_fd) {
  // No core file of this process when it is killed with SIGABRT.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  std::string report;
  try {
    auto stack = start_stack();
    report = std::to_string(stack->fake->pid()) + " " + std::to_string(stack->gateway->pid()) + " " +
             stack->gateway->dir() + "\n";
    (void)!::write(report_fd, report.data(), report.size());
    while (true) ::pause();
  } catch (const std::exception& e) {
    report = std::string("error ") + e.what() + "\n";
  }
  (void)!::write(report_fd, report.data(), report.size());
  ::_exit(1);
}

class ChildCleanupTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    // Orphans are reparented to this process, which reaps them and so can
    // tell that they are gone.
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0) << std::strerror(errno);
  }
  void TearDown() override { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
};

TEST_P(ChildCleanupTest, ChildrenDieWithTheTestProcess) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t owner = ::fork();
  ASSERT_GE(owner, 0) << std::strerror(errno);
  if (owner == 0) {
    ::close(fds[0]);
    own_a_stack(fds[1]);
  }
  ::close(fds[1]);
  const std::string report = read_line(fds[0], Clock::now() + 90s);
  ::close(fds[0]);
  pid_t fake = 0;
  pid_t gateway = 0;
  std::string dir;
  std::istringstream(report) >> fake >> gateway >> dir;
  if (fake <= 0 || gateway <= 0) {
    ::kill(owner, SIGKILL);
    ::waitpid(owner, nullptr, 0);
    FAIL() << "the child did not start a stack: '" << report << "'";
  }

  ::kill(owner, GetParam());
  int status = 0;
  ASSERT_EQ(::waitpid(owner, &status, 0), owner);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), GetParam());

  const auto deadline = Clock::now() + 10s;
  while (!(gone(fake) && gone(gateway)) && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
  const bool fake_gone = gone(fake);
  const bool gateway_gone = gone(gateway);
  // Whatever the outcome, leave nothing behind.
  for (const pid_t pid : {fake, gateway}) {
    if (!gone(pid)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  EXPECT_TRUE(fake_gone) << "fake_upstream (pid " << fake << ") outlived its owner by 10 s";
  EXPECT_TRUE(gateway_gone) << "modelgw (pid " << gateway << ") outlived its owner by 10 s";
}

INSTANTIATE_TEST_SUITE_P(Signals, ChildCleanupTest, ::testing::Values(SIGKILL, SIGTERM, SIGABRT),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

}  // namespace
}  // namespace it
