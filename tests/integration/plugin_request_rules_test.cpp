// What a provider plugin builds is checked before it reaches the wire
// (plugin.h, mgw_request_sink): a method, path, header name or value that
// could smuggle a line or break the request line fails the request with a 500
// naming the plugin, and the upstream never sees it; the framing and
// hop-by-hop headers a plugin sends are dropped. The fixture plugin
// (tests/abi/fixtures/request_faults.c) breaks the rule its config names.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <sstream>

namespace it {
namespace {

const std::vector<std::string>& faults() {
  static const std::vector<std::string> all = {"bad_method", "crlf_method", "crlf_path",
                                               "nul_path",   "crlf_value",  "lf_value",
                                               "nul_value",  "bad_name",    "colon_name"};
  return all;
}

std::string providers_yaml(int fake_port) {
  std::ostringstream y;
  for (const auto& fault : faults()) {
    y << "  f-" << fault << ":\n"
      << "    plugin: \"" << REQUEST_FAULTS_PLUGIN << "\"\n"
      << "    base_url: \"http://127.0.0.1:" << fake_port << "/v1\"\n"
      << "    api_key: \"" << kProviderKey << "\"\n"
      << "    fault: " << fault << "\n";
  }
  for (const char* fault : {"hop_headers", "small_usage", "garbage_status"}) {
    y << "  f-" << fault << ":\n"
      << "    plugin: \"" << REQUEST_FAULTS_PLUGIN << "\"\n"
      << "    base_url: \"http://127.0.0.1:" << fake_port << "/v1\"\n"
      << "    api_key: \"" << kProviderKey << "\"\n"
      << "    fault: " << fault << "\n";
  }
  return y.str();
}

class PluginRequestRulesTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      auto stack = std::make_unique<Stack>();
      stack->fake = std::make_unique<FakeUpstream>(kProviderKey);
      GatewayOptions options;
      options.upstream_port = stack->fake->port();
      options.catalog.clear();
      for (const auto& fault : faults())
        options.catalog.push_back({"m-" + fault, "f-" + fault, "gpt-4o-mini"});
      for (const char* fault : {"hop_headers", "small_usage", "garbage_status"}) {
        options.catalog.push_back({std::string("m-") + fault, std::string("f-") + fault, "gpt-4o-mini"});
      }
      options.extra_providers_yaml = providers_yaml(stack->fake->port());
      stack->gateway = std::make_unique<Gateway>(std::move(options));
      stack->gateway->create_tenant("acme");
      stack->key = stack->gateway->create_key("acme");
      stack->gateway->start();
      stack_ = std::move(stack);
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }

  static int upstream_calls_for(const std::string& fault) {
    int n = 0;
    for (const auto& r : stack_->fake->requests()) n += r["body"].dump().find(fault) != std::string::npos;
    return n;
  }

  static std::unique_ptr<Stack> stack_;
  static std::string setup_error_;
};

std::unique_ptr<Stack> PluginRequestRulesTest::stack_;
std::string PluginRequestRulesTest::setup_error_;

TEST_F(PluginRequestRulesTest, EveryUnsafePartFailsWithA500NamingThePluginAndNeverReachesTheWire) {
  for (const auto& fault : faults()) {
    SCOPED_TRACE(fault);
    const auto r = post_chat(stack_->port(), stack_->key.key, chat_body("m-" + fault, "rules"));
    EXPECT_EQ(r.status, 500) << r.body;
    const auto err = r.json()["error"];
    EXPECT_EQ(err["code"], "internal_error") << r.body;
    const std::string message = err["message"].get<std::string>();
    EXPECT_NE(message.find("request_faults"), std::string::npos) << "names the plugin: " << message;
    EXPECT_NE(message.find("f-" + fault), std::string::npos) << "names the provider: " << message;
    EXPECT_EQ(message.find("Smuggled"), std::string::npos) << "never echoes what the plugin wrote";
    EXPECT_EQ(upstream_calls_for(fault), 0) << "nothing of it reached the upstream";
  }
}

TEST_F(PluginRequestRulesTest, AnAnswerThatBreaksTheAbiIsA500NamingThePlugin) {
  // Usage whose struct_size is below ABI 1.0's: the host takes none of the answer.
  auto r = post_chat(stack_->port(), stack_->key.key, chat_body("m-small_usage", "rules"));
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_NE(r.json()["error"]["message"].get<std::string>().find("request_faults"), std::string::npos)
      << r.body;
  // A status no hook may return, with nothing emitted.
  r = post_chat(stack_->port(), stack_->key.key, chat_body("m-garbage_status", "rules"));
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(r.json()["error"]["code"], "internal_error") << r.body;
}

TEST_F(PluginRequestRulesTest, TheHostsOwnHeadersFromAPluginAreDropped) {
  const auto r = post_chat(stack_->port(), stack_->key.key, chat_body("m-hop_headers", "rules"));
  ASSERT_EQ(r.status, 200) << r.body;
  nlohmann::json seen;
  for (const auto& req : stack_->fake->requests()) {
    if (req["body"].dump().find("hop_headers") != std::string::npos) seen = req;
  }
  ASSERT_TRUE(seen.is_object()) << "the request reached the upstream";
  const auto& h = seen["headers"];
  EXPECT_EQ(h.value("host", ""), "127.0.0.1:" + std::to_string(stack_->fake->port()));
  EXPECT_EQ(h.value("content-length", ""), std::to_string(seen["body"].dump().size()))
      << "the host's length, not the plugin's 5";
  EXPECT_FALSE(h.contains("transfer-encoding"));
  EXPECT_FALSE(h.contains("keep-alive"));
  EXPECT_FALSE(h.contains("te"));
  EXPECT_FALSE(h.contains("upgrade"));
  EXPECT_NE(h.value("connection", ""), "close");
  EXPECT_EQ(h.value("x-fixture", ""), "kept") << "other headers pass";
}

}  // namespace
}  // namespace it
