// GET /metrics, /healthz and /readyz from the outside: the series a plain,
// a streamed, a refused and a PII-flagged chat call move; the scrape's
// format and content type; the bearer token when one is configured; and the
// readiness checks' report.
#include "harness/checks.h"
#include "harness/stack.h"

#include <sstream>

namespace it {
namespace {

// The value of the sample written exactly as `series`; 0 when absent.
double sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return 0;
}

std::string scrape(int port) {
  const auto r = http_get(port, "/metrics");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return r.body;
}

const std::string kRoute = R"(alias="house-chat",provider="openai")";
const std::string kGenAi =
    R"(gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="house-chat")";

class MetricsTest : public SharedStackTest<MetricsTest> {};

TEST_F(MetricsTest, ChatCallsMoveTheirSeries) {
  const std::string before = scrape(port());
  const std::string ok =
      "modelgw_requests_total{" + kRoute + R"(,gen_ai_operation_name="chat",status="200",error_code="none"})";
  const std::string missing =
      R"(modelgw_requests_total{alias="",provider="",gen_ai_operation_name="chat",status="404",error_code="model_not_found"})";
  const std::string duration = "gen_ai_client_operation_duration_seconds_count{" + kGenAi + "}";
  const std::string ttft = "gen_ai_server_time_to_first_token_seconds_count{" + kGenAi + "}";
  const std::string input = "gen_ai_client_token_usage_sum{" + kGenAi + R"(,gen_ai_token_type="input"})";
  const std::string streamed = "modelgw_streamed_requests_total{" + kRoute + "}";
  const std::string upstream = "modelgw_upstream_duration_seconds_count{" + kRoute + "}";
  const std::string email = R"(modelgw_pii_findings_total{action="flagged",category="email"})";

  const std::string text = "metrics plain one two";
  ASSERT_EQ(post_chat(port(), key(), chat_body("house-chat", text)).status, 200);
  const auto stream = stream_chat(port(), key(), chat_body("house-chat", "metrics stream", true));
  ASSERT_EQ(stream.status, 200);
  ASSERT_EQ(post_chat(port(), key(), chat_body("no-such-model", "x")).status, 404);
  ASSERT_EQ(post_chat(port(), key(), chat_body("house-chat", "write to jane.roe@example.org")).status, 200);

  const std::string after = scrape(port());
  EXPECT_EQ(sample(after, ok) - sample(before, ok), 3) << after;
  EXPECT_EQ(sample(after, missing) - sample(before, missing), 1);
  EXPECT_EQ(sample(after, duration) - sample(before, duration), 3);
  EXPECT_EQ(sample(after, upstream) - sample(before, upstream), 3);
  EXPECT_EQ(sample(after, ttft) - sample(before, ttft), 1);
  EXPECT_EQ(sample(after, streamed) - sample(before, streamed), 1);
  EXPECT_EQ(sample(after, email) - sample(before, email), 1);
  const json usage = fake_usage(user_messages(text), fake_reply(user_messages(text)));
  EXPECT_GE(sample(after, input) - sample(before, input), usage["prompt_tokens"].get<double>());
  EXPECT_EQ(sample(after, "modelgw_chat_streams_open"), 0) << "every stream ended";
  EXPECT_GE(sample(after, "modelgw_http_requests_in_flight"), 1) << "the scrape itself";
  EXPECT_NE(after.find("# TYPE gen_ai_client_token_usage histogram\n"), std::string::npos);
  EXPECT_NE(after.find(R"(modelgw_plugin_info{kind="storage",name="sqlite",)"), std::string::npos);
  EXPECT_NE(after.find(R"(modelgw_plugin_info{kind="provider",name="openai",)"), std::string::npos);
  EXPECT_EQ(after.find("jane.roe"), std::string::npos) << "no PII value in metrics";
  EXPECT_EQ(after.find("acme"), std::string::npos) << "no tenant label";
  ASSERT_TRUE(eventually([&] { return sample(scrape(port()), "modelgw_usage_records_written_total") >= 4; }));
}

TEST_F(MetricsTest, HealthzAndReadyzReportTheirChecks) {
  EXPECT_EQ(http_get(port(), "/healthz").status, 200);
  const auto r = http_get(port(), "/readyz");
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = r.json();
  EXPECT_EQ(body["status"], "ready");
  EXPECT_EQ(body["failed"], json::array());
  EXPECT_EQ(body["storage"]["state"], "reachable");
  EXPECT_GE(body["plugins"]["loaded"].get<int>(), 2);
  EXPECT_EQ(body["draining"], false);
  EXPECT_FALSE(body.contains("jwt_keyset")) << "JWTs are off";
}

TEST(MetricsConfigTest, ABearerTokenIsRequiredWhenSetAndDisabledMetricsAre404) {
  GatewayOptions o;
  o.extra_yaml = "metrics:\n  bearer_token: scrape-secret-1\n";
  auto stack = start_stack(o);
  EXPECT_EQ(http_get(stack->port(), "/metrics").status, 401);
  EXPECT_EQ(http_get(stack->port(), "/metrics", "wrong-token").status, 401);
  const auto ok = http_get(stack->port(), "/metrics", "scrape-secret-1");
  EXPECT_EQ(ok.status, 200);
  EXPECT_NE(ok.body.find("# TYPE modelgw_requests_total counter"), std::string::npos);
  EXPECT_EQ(stack->gateway->log().find("scrape-secret-1"), std::string::npos) << "never logged";
  stack.reset();

  GatewayOptions off;
  off.extra_yaml = "metrics:\n  enabled: false\n";
  stack = start_stack(off);
  EXPECT_EQ(http_get(stack->port(), "/metrics").status, 404);
  EXPECT_EQ(http_get(stack->port(), "/healthz").status, 200);
}

}  // namespace
}  // namespace it
