// Every thread of the running gateway has a name that says what it does
// (top -H, ps -L, perf: docs/ARCHITECTURE.md, "Threading"), so an operator
// who sees one thread burn CPU knows which part of the gateway it is; and
// the threads that write in the background sleep while there is nothing to
// write.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace it {
namespace {

// Each thread of `pid` (/proc/PID/task/*): its name, and how often it has
// been switched off its core (voluntarily and not): each is one time it
// slept and was woken, or was preempted.
struct TaskInfo {
  std::string name;
  long switches = 0;
};
std::vector<TaskInfo> tasks_of(int pid) {
  std::vector<TaskInfo> tasks;
  std::error_code ec;
  const std::filesystem::path dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(dir, ec)) {
    TaskInfo info;
    std::ifstream comm(task.path() / "comm");
    if (!std::getline(comm, info.name)) continue;
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0 || line.rfind("nonvoluntary_ctxt_switches:", 0) == 0)
        info.switches += std::stol(line.substr(line.find(':') + 1));
    }
    tasks.push_back(std::move(info));
  }
  return tasks;
}

// Thread name -> how many threads carry it.
std::map<std::string, int> thread_names(int pid) {
  std::map<std::string, int> names;
  for (const auto& task : tasks_of(pid)) ++names[task.name];
  return names;
}

// Thread name -> the switches of the threads that carry it.
std::map<std::string, long> switches_by_thread(int pid) {
  std::map<std::string, long> switches;
  for (const auto& task : tasks_of(pid)) switches[task.name] += task.switches;
  return switches;
}

TEST(ThreadNamesTest, EveryThreadOfTheGatewaySaysWhatItDoes) {
  GatewayOptions options;
  options.extra_server_yaml = "  event_loops: 2\n";
  auto stack = start_stack(options);
  const int pid = stack->gateway->pid();
  ASSERT_GT(pid, 0);
  // One request, so every thread a request uses has started.
  const auto answer = post_chat(stack->port(), stack->key.key, chat_body("gpt-4o-mini", "hello"));
  ASSERT_EQ(answer.status, 200) << answer.body.substr(0, 300);

  const auto names = thread_names(pid);
  EXPECT_EQ(names.count("mgw-loop-0"), 1u);
  EXPECT_EQ(names.count("mgw-loop-1"), 1u);
  EXPECT_EQ(names.count("mgw-usage"), 1u);
  EXPECT_EQ(names.count("mgw-log"), 1u);
  EXPECT_GE(names.count("mgw-blocking"), 1u);
  EXPECT_GE(names.count("mgw-query"), 1u);
  for (const auto& [name, count] : names) {
    // The main thread keeps the program's name; jemalloc names its own.
    const bool known = name.rfind("mgw-", 0) == 0 || name == "modelgw" || name == "jemalloc_bg_thd";
    EXPECT_TRUE(known) << count << " thread(s) named '" << name << "'";
  }
}

// modelgw_thread_cpu_seconds_total{thread}: the same split for a scraper,
// with label values from a fixed set.
TEST(ThreadNamesTest, MetricsSplitTheProcessCpuByKindOfThread) {
  auto stack = start_stack();
  for (int i = 0; i < 20; ++i) {
    const auto answer = post_chat(stack->port(), stack->key.key, chat_body("gpt-4o-mini", "cpu split"));
    ASSERT_EQ(answer.status, 200) << answer.body.substr(0, 300);
  }
  const auto scrape = http_get(stack->port(), "/metrics");
  ASSERT_EQ(scrape.status, 200);
  EXPECT_NE(scrape.body.find("# TYPE modelgw_thread_cpu_seconds_total counter"), std::string::npos);
  std::istringstream lines(scrape.body);
  std::string line;
  std::map<std::string, double> kinds;
  const std::string prefix = "modelgw_thread_cpu_seconds_total{thread=\"";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const auto end = line.find('"', prefix.size());
    ASSERT_NE(end, std::string::npos) << line;
    kinds[line.substr(prefix.size(), end - prefix.size())] = std::stod(line.substr(line.rfind(' ') + 1));
  }
  for (const char* kind : {"main", "mgw-loop", "mgw-usage", "mgw-log", "mgw-blocking"}) {
    EXPECT_EQ(kinds.count(kind), 1u) << kind;
  }
  for (const auto& [kind, seconds] : kinds) {
    EXPECT_TRUE(kind == "main" || kind == "other" || kind.rfind("mgw-", 0) == 0) << kind;
    EXPECT_GE(seconds, 0) << kind;
  }
}

// A gateway with nothing to do sleeps: its writers (usage records, log
// lines, audit events) wake when something is queued, not on a timer, so an
// idle process costs no CPU and no wake-ups (an operator running many small
// gateways, or one on a laptop, sees them at rest in top and powertop).
TEST(ThreadNamesTest, IdleWritersSleepUntilSomethingIsQueued) {
  auto stack = start_stack();
  const int pid = stack->gateway->pid();
  ASSERT_GT(pid, 0);
  // A request, so each writer has had something to write and gone back to
  // waiting; then time for the last batch to be written.
  const auto answer = post_chat(stack->port(), stack->key.key, chat_body("gpt-4o-mini", "then rest"));
  ASSERT_EQ(answer.status, 200) << answer.body.substr(0, 300);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));

  const auto before = switches_by_thread(pid);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto after = switches_by_thread(pid);
  for (const char* writer : {"mgw-usage", "mgw-log", "mgw-audit"}) {
    ASSERT_EQ(before.count(writer), 1u) << writer << " is not running";
    // A timer at the writers' flush intervals (20-50 ms) wakes 20-50 times.
    EXPECT_LE(after.at(writer) - before.at(writer), 2) << writer << " woke while the gateway was idle";
  }

  // Asleep is not stuck: the next request's record is written, and can be read.
  const auto again = post_chat(stack->port(), stack->key.key, chat_body("gpt-4o-mini", "and again"));
  ASSERT_EQ(again.status, 200) << again.body.substr(0, 300);
  const std::string request_id = again.header("x-request-id");
  EXPECT_TRUE(stack->usage().wait_for(request_id, std::chrono::seconds(2)))
      << "no usage record for " << request_id;
}

}  // namespace
}  // namespace it
