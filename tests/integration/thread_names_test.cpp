// Every thread of the running gateway has a name that says what it does
// (top -H, ps -L, perf: docs/ARCHITECTURE.md, "Threading"), so an operator
// who sees one thread burn CPU knows which part of the gateway it is.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace it {
namespace {

// Thread name -> how many threads carry it, from /proc/PID/task/*/comm.
std::map<std::string, int> thread_names(int pid) {
  std::map<std::string, int> names;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) ++names[name];
  }
  return names;
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

}  // namespace
}  // namespace it
