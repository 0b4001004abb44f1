// The metrics registry and its text exposition (metrics/registry.h), and
// the scrape cost for a realistic catalog.
#include "metrics/registry.h"
#include "metrics/exposition.h"
#include "metrics/thread_cpu.h"
#include "util/thread_name.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace modelgw::metrics {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The value of the sample written exactly as `series` (name{labels}); -1 when absent.
double sample(const std::string& text, const std::string& series) {
  for (const auto& line : lines_of(text)) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

ChatObservation ok_call(std::string_view alias, std::string_view provider) {
  ChatObservation o;
  o.alias = alias;
  o.provider = provider;
  o.status = 200;
  o.latency_us = 150'000;
  o.upstream_us = 120'000;
  o.input_tokens = 30;
  o.output_tokens = 200;
  o.cost_micros = 1234;
  return o;
}

// Every family's samples follow its one HELP and TYPE; no name repeats a family.
void expect_well_formed(const std::string& text) {
  std::map<std::string, std::string> types;
  std::string current;
  for (const auto& line : lines_of(text)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("# HELP ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      ASSERT_EQ(types.count(current), 0u) << "family written twice: " << current;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      const auto name = line.substr(7, line.find(' ', 7) - 7);
      ASSERT_EQ(name, current);
      types[name] = line.substr(line.rfind(' ') + 1);
      continue;
    }
    const auto name = line.substr(0, line.find_first_of("{ "));
    ASSERT_FALSE(current.empty()) << line;
    if (types[current] == "histogram") {
      ASSERT_TRUE(name == current + "_bucket" || name == current + "_sum" || name == current + "_count")
          << line;
    } else {
      ASSERT_EQ(name, current) << line;
    }
  }
}

TEST(MetricsExposition, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  Registry r(std::vector<RouteName>{{"we\"ird\\alias", "p"}});
  r.observe_chat(ok_call("we\"ird\\alias", "p"));
  EXPECT_NE(r.render().find("alias=\"we\\\"ird\\\\alias\",provider=\"p\""), std::string::npos);
}

TEST(MetricsRegistry, CountsRequestsByAliasStatusAndCode) {
  Registry r(std::vector<RouteName>{{"fast", "openai"}, {"smart", "anthropic"}});
  r.observe_chat(ok_call("fast", "openai"));
  r.observe_chat(ok_call("fast", "openai"));
  ChatObservation bad;
  bad.status = 400;
  bad.error_code = "invalid_json";
  r.observe_chat(bad);
  ChatObservation odd = ok_call("smart", "anthropic");
  odd.status = 418;
  odd.error_code = "a_code_of_the_plugin";
  r.observe_chat(odd);
  const auto text = r.render();
  expect_well_formed(text);
  EXPECT_EQ(
      sample(
          text,
          R"(modelgw_requests_total{alias="fast",provider="openai",gen_ai_operation_name="chat",status="200",error_code="none"})"),
      2);
  EXPECT_EQ(
      sample(
          text,
          R"(modelgw_requests_total{alias="",provider="",gen_ai_operation_name="chat",status="400",error_code="invalid_json"})"),
      1);
  EXPECT_EQ(
      sample(
          text,
          R"(modelgw_requests_total{alias="smart",provider="anthropic",gen_ai_operation_name="chat",status="other",error_code="other"})"),
      1);
  EXPECT_EQ(sample(text, R"(modelgw_cost_micros_total{alias="fast",provider="openai"})"), 2468);
  EXPECT_EQ(sample(text, R"(modelgw_tokens_total{alias="fast",provider="openai",type="output"})"), 400);
}

TEST(MetricsRegistry, UnknownRoutesCountAsOtherAndReloadAddsThem) {
  Registry r(std::vector<RouteName>{{"fast", "openai"}});
  r.observe_chat(ok_call("new", "openai"));
  EXPECT_EQ(
      sample(
          r.render(),
          R"(modelgw_requests_total{alias="other",provider="other",gen_ai_operation_name="chat",status="200",error_code="none"})"),
      1);
  r.add_routes({{"new", "openai"}, {"fast", "openai"}});
  r.observe_chat(ok_call("new", "openai"));
  EXPECT_EQ(
      sample(
          r.render(),
          R"(modelgw_requests_total{alias="new",provider="openai",gen_ai_operation_name="chat",status="200",error_code="none"})"),
      1);
}

TEST(MetricsRegistry, TheOperationIsTheGenAiOperationNameOfAFixedList) {
  Registry r(std::vector<RouteName>{{"fast", "openai"}});
  const std::map<std::string, std::string> expected = {{"chat.completions", "chat"},
                                                       {"messages", "chat"},
                                                       {"responses", "generate_content"},
                                                       {"embeddings", "embeddings"}};
  for (const auto& [operation, name] : expected) {
    ChatObservation o = ok_call("fast", "openai");
    o.operation = operation;
    r.observe_chat(o);
  }
  ChatObservation unknown = ok_call("fast", "openai");
  unknown.operation = "not.an.api";  // bounded: counted as chat, never a label value of its own
  r.observe_chat(unknown);
  const auto text = r.render();
  expect_well_formed(text);
  const std::string route = R"(alias="fast",provider="openai",gen_ai_operation_name=)";
  EXPECT_EQ(sample(text, "modelgw_requests_total{" + route + R"("chat",status="200",error_code="none"})"), 3);
  EXPECT_EQ(sample(text, "modelgw_requests_total{" + route +
                             R"("generate_content",status="200",error_code="none"})"),
            1);
  EXPECT_EQ(
      sample(text, "modelgw_requests_total{" + route + R"("embeddings",status="200",error_code="none"})"), 1);
  for (const char* name : {"chat", "generate_content", "embeddings"}) {
    const std::string labels = std::string(R"(gen_ai_operation_name=")") + name +
                               R"(",gen_ai_provider_name="openai",gen_ai_request_model="fast")";
    EXPECT_EQ(sample(text, "gen_ai_client_operation_duration_seconds_count{" + labels + "}"),
              std::string(name) == "chat" ? 3 : 1)
        << name;
    EXPECT_EQ(sample(text, "gen_ai_client_token_usage_count{" + labels + R"(,gen_ai_token_type="input"})"),
              std::string(name) == "chat" ? 3 : 1)
        << name;
  }
  EXPECT_EQ(text.find("not.an.api"), std::string::npos);
  EXPECT_EQ(text.find("gen_ai_operation_name=\"responses\""), std::string::npos);
  // The series of the route itself are not split by operation.
  EXPECT_EQ(sample(text, R"(modelgw_tokens_total{alias="fast",provider="openai",type="input"})"), 150);
}

TEST(MetricsRegistry, HistogramsAreCumulativeWithInfSumAndCount) {
  Registry r(std::vector<RouteName>{{"fast", "openai"}});
  for (std::int64_t us : {5'000, 15'000, 15'000, 100'000'000}) {
    ChatObservation o = ok_call("fast", "openai");
    o.latency_us = us;
    r.observe_chat(o);
  }
  const auto text = r.render();
  expect_well_formed(text);
  const std::string labels =
      R"(gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="fast")";
  const std::string name = "gen_ai_client_operation_duration_seconds";
  EXPECT_EQ(sample(text, name + "_bucket{" + labels + R"(,le="0.01"})"), 1);
  EXPECT_EQ(sample(text, name + "_bucket{" + labels + R"(,le="0.02"})"), 3);
  EXPECT_EQ(sample(text, name + "_bucket{" + labels + R"(,le="81.92"})"), 3);
  EXPECT_EQ(sample(text, name + "_bucket{" + labels + R"(,le="+Inf"})"), 4);
  EXPECT_EQ(sample(text, name + "_count{" + labels + "}"), 4);
  EXPECT_DOUBLE_EQ(sample(text, name + "_sum{" + labels + "}"), 100.035);
  // Buckets never decrease.
  double last = 0;
  for (const auto& line : lines_of(text)) {
    if (line.rfind(name + "_bucket{" + labels, 0) != 0) continue;
    const double v = std::stod(line.substr(line.rfind(' ') + 1));
    EXPECT_GE(v, last) << line;
    last = v;
  }
  EXPECT_EQ(sample(text, "gen_ai_client_token_usage_count{" + labels + R"(,gen_ai_token_type="input"})"), 4);
  EXPECT_EQ(sample(text, "gen_ai_client_token_usage_sum{" + labels + R"(,gen_ai_token_type="output"})"), 800);
}

TEST(MetricsRegistry, CountsPiiRefusalsRetriesAndStreams) {
  Registry r(std::vector<RouteName>{{"fast", "openai"}});
  ChatObservation o = ok_call("fast", "openai");
  o.pii_action = "masked";
  o.pii_findings = R"({"email":2,"payment_card":1})";
  o.retries = 2;
  o.fallbacks = 1;
  o.streamed = true;
  o.ttft_us = 30'000;
  r.observe_chat(o);
  ChatObservation refused;
  refused.status = 429;
  refused.error_code = "rate_limit_exceeded";
  refused.refusal = "RATE_LIMITED";
  r.observe_chat(refused);
  {
    OpenStream open(&r, true);
    EXPECT_EQ(sample(r.render(), "modelgw_chat_streams_open"), 1);
  }
  const auto text = r.render();
  expect_well_formed(text);
  EXPECT_EQ(sample(text, "modelgw_chat_streams_open"), 0);
  EXPECT_EQ(sample(text, R"(modelgw_pii_findings_total{action="masked",category="email"})"), 2);
  EXPECT_EQ(sample(text, R"(modelgw_pii_findings_total{action="masked",category="payment_card"})"), 1);
  EXPECT_EQ(sample(text, R"(modelgw_pii_requests_total{action="masked"})"), 1);
  EXPECT_EQ(sample(text, R"(modelgw_spend_refusals_total{reason="RATE_LIMITED"})"), 1);
  EXPECT_EQ(sample(text, R"(modelgw_retries_total{alias="fast",provider="openai"})"), 2);
  EXPECT_EQ(sample(text, R"(modelgw_fallbacks_total{alias="fast",provider="openai"})"), 1);
  EXPECT_EQ(
      sample(
          text,
          R"(gen_ai_server_time_to_first_token_seconds_count{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="fast"})"),
      1);
}

TEST(MetricsRegistry, SourcesAndPluginInfo) {
  Registry r(std::vector<RouteName>{});
  r.add_source("modelgw_usage_queue_depth", "queued", "gauge", [] { return 7.0; });
  r.add_plugin("storage", "sqlite", "1.2.0", "1.5");
  const auto text = r.render();
  expect_well_formed(text);
  EXPECT_EQ(sample(text, "modelgw_usage_queue_depth"), 7);
  EXPECT_EQ(sample(text, R"(modelgw_plugin_info{kind="storage",name="sqlite",version="1.2.0",abi="1.5"})"),
            1);
  EXPECT_NE(text.find("# TYPE modelgw_usage_queue_depth gauge\n"), std::string::npos);
}

TEST(MetricsRegistry, LabelledSourceWritesOneSamplePerValueEscaped) {
  Registry r(std::vector<RouteName>{});
  r.add_labelled_source("modelgw_thread_cpu_seconds_total", "cpu", "counter", "thread", [] {
    return Registry::LabelledValues{{"mgw-loop", 1.5}, {"a\"b", 2}};
  });
  const auto text = r.render();
  expect_well_formed(text);
  EXPECT_NE(text.find("# TYPE modelgw_thread_cpu_seconds_total counter\n"), std::string::npos);
  EXPECT_EQ(sample(text, R"(modelgw_thread_cpu_seconds_total{thread="mgw-loop"})"), 1.5);
  EXPECT_EQ(sample(text, R"(modelgw_thread_cpu_seconds_total{thread="a\"b"})"), 2);
}

// This process's threads by kind: the test's own threads are "other" or
// "main"; a thread named mgw-loop-7 counts as "mgw-loop".
TEST(MetricsThreadCpu, KindsOfThisProcessThreads) {
  EXPECT_EQ(thread_cpu_label("mgw-loop-7", false), "mgw-loop");
  EXPECT_EQ(thread_cpu_label("mgw-usage", false), "mgw-usage");
  EXPECT_EQ(thread_cpu_label("modelgw", true), "main");
  EXPECT_EQ(thread_cpu_label("jemalloc_bg_thd", false), "other");
  EXPECT_EQ(thread_cpu_label("some-plugin-2", false), "other");

  std::atomic<bool> stop{false};
  std::thread busy([&] {
    util::set_thread_name("mgw-loop-7");
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    volatile std::uint64_t spin = 0;
    // Spins until told to stop (bounded: 5 s), so the kind has CPU time to read.
    while (!stop.load() && std::chrono::steady_clock::now() < until) spin = spin + 1;
  });
  double loop_cpu = 0;
  bool has_main = false;
  for (int i = 0; i < 100 && loop_cpu <= 0; ++i) {  // at most 2 s: one clock tick is 10 ms
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    loop_cpu = 0;
    for (const auto& [kind, seconds] : thread_cpu_seconds()) {
      if (kind == "mgw-loop") loop_cpu = seconds;
      if (kind == "main") has_main = true;
      EXPECT_TRUE(kind == "main" || kind == "other" || kind.rfind("mgw-", 0) == 0) << kind;
    }
  }
  stop = true;
  busy.join();
  EXPECT_GT(loop_cpu, 0);
  EXPECT_TRUE(has_main);
}

// The scrape cost for a catalog of 10 aliases, each having served every
// kind of call (so every family and histogram is written): printed, and
// bounded loosely so a regression by orders of magnitude fails.
TEST(MetricsRender, ScrapeCostForTenAliases) {
  std::vector<RouteName> routes;
  for (int i = 0; i < 10; ++i)
    routes.push_back({"model-" + std::to_string(i), i % 2 ? "openai" : "anthropic"});
  Registry r(routes);
  for (int i = 0; i < 10; ++i) {
    for (const char* code : {"", "invalid_parameter", "provider_timeout", "rate_limit_exceeded"}) {
      ChatObservation o = ok_call(routes[i].alias, routes[i].provider);
      o.error_code = code;
      o.status = *code ? 400 : 200;
      o.ttft_us = 40'000;
      o.streamed = true;
      r.observe_chat(o);
    }
  }
  for (int i = 0; i < 12; ++i)
    r.add_source("modelgw_source_" + std::to_string(i), "a source", "gauge", [] { return 1.0; });
  for (int i = 0; i < 6; ++i) r.add_plugin("provider", "p" + std::to_string(i), "1.0.0", "1.5");

  constexpr int kRounds = 200;
  std::size_t bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) bytes = r.render().size();
  const auto per_scrape_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start)
          .count() /
      kRounds;
  std::printf("metrics scrape, 10 aliases: %lld us, %zu bytes\n", static_cast<long long>(per_scrape_us),
              bytes);

  // The hot path, for comparison.
  const auto hot_start = std::chrono::steady_clock::now();
  constexpr int kCalls = 200000;
  for (int i = 0; i < kCalls; ++i) r.observe_chat(ok_call(routes[i % 10].alias, routes[i % 10].provider));
  const auto per_call_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - hot_start)
          .count() /
      kCalls;
  std::printf("metrics observe_chat: %lld ns per call\n", static_cast<long long>(per_call_ns));
  EXPECT_LT(per_scrape_us, 20'000);
  EXPECT_LT(per_call_ns, 20'000);
}

}  // namespace
}  // namespace modelgw::metrics
