// SIGHUP (and `modelgw reload`) rebuilds the routing from the configuration
// file: a stream under way finishes on the configuration it started with,
// new requests use the new one; a file that fails to load keeps the running
// configuration and says why in one log line; restart-only changes warn.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Waits (bounded) until the log holds `n` copies of `needle`.
bool wait_count(const Gateway& gateway, const std::string& needle, std::size_t n,
                std::chrono::milliseconds timeout = 5s) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (count_of(gateway.log(), needle) >= n) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

std::string alias_line(const std::string& alias, const std::string& model) {
  return "  " + alias + ": { provider: openai, model: \"" + model +
         "\", context_window: 128000, prices: { input: 0.15, output: 0.60 } }\n";
}

constexpr const char* kApplied = "reload: configuration from";
constexpr const char* kFailed = "reload failed; the running configuration stays";

class ReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pid_file_ = (std::filesystem::temp_directory_path() /
                 ("modelgw-reload-test-" + std::to_string(::getpid()) + ".pid"))
                    .string();
    GatewayOptions o;
    o.extra_server_yaml = "  pid_file: \"" + pid_file_ + "\"\n";
    stack_ = start_stack(o);
    original_ = stack_->gateway->config_text();
  }
  void TearDown() override {
    stack_.reset();
    std::error_code ec;
    std::filesystem::remove(pid_file_, ec);
  }
  int port() const { return stack_->port(); }
  const std::string& key() const { return stack_->key.key; }
  Gateway& gateway() { return *stack_->gateway; }
  // The config with provider "openai" pointed at `base_url`.
  std::string with_openai_at(const std::string& base_url) const {
    const std::string head = "  openai:\n    plugin: openai\n    base_url: \"";
    const auto at = original_.find(head);
    if (at == std::string::npos) throw std::runtime_error("no openai provider in the config");
    const auto start = at + head.size();
    const auto end = original_.find('"', start);
    std::string text = original_;
    return text.replace(start, end - start, base_url);
  }

  std::string pid_file_;
  std::unique_ptr<Stack> stack_;
  std::string original_;
};

TEST_F(ReloadTest, SighupAppliesNewRoutesWhileAnOpenStreamFinishesOnTheOldOnes) {
  SseStream stream(port(), key(), chat_body("long-stream", "keep my config", true), 10s);
  ASSERT_EQ(stream.status(), 200);
  ASSERT_TRUE(stream.next().has_value()) << stream.error();

  // The new file: a new alias, and provider "openai" moved to a dead port.
  const std::string dead = "http://127.0.0.1:" + std::to_string(gateway().dead_port()) + "/v1";
  gateway().write_config(with_openai_at(dead) + alias_line("fresh-alias", "gpt-4o-mini"));
  gateway().send_signal(SIGHUP);
  ASSERT_TRUE(wait_count(gateway(), kApplied, 1)) << gateway().log();

  // The open stream keeps the old upstream and ends normally.
  std::vector<std::string> rest;
  for (int i = 0; i < 100; ++i) {
    auto event = stream.next();
    if (!event) break;
    rest.push_back(event->data);
  }
  ASSERT_FALSE(rest.empty()) << stream.error();
  EXPECT_EQ(rest.back(), "[DONE]");

  // New requests see the new catalog and the new base_url.
  const auto models = http_get(port(), "/v1/models", key());
  EXPECT_NE(models.body.find("fresh-alias"), std::string::npos) << models.body;
  const auto fresh = post_chat(port(), key(), chat_body("fresh-alias", "new route"));
  EXPECT_EQ(fresh.status, 502) << fresh.body;  // known alias, unreachable upstream
  EXPECT_EQ(fresh.json()["error"]["code"], "provider_failed") << fresh.body;
  // Back to the fake: served again.
  gateway().write_config(original_ + alias_line("fresh-alias", "gpt-4o-mini"));
  gateway().send_signal(SIGHUP);
  ASSERT_TRUE(wait_count(gateway(), kApplied, 2)) << gateway().log();
  EXPECT_EQ(post_chat(port(), key(), chat_body("fresh-alias", "back")).status, 200);
}

TEST_F(ReloadTest, BrokenFileKeepsTheRunningConfigAndSaysWhyInOneLine) {
  gateway().write_config(original_ + alias_line("fresh-alias", "gpt-4o-mini"));
  gateway().send_signal(SIGHUP);
  ASSERT_TRUE(wait_count(gateway(), kApplied, 1)) << gateway().log();

  // Not YAML at all; then a provider whose plugin does not exist.
  gateway().write_config("catalog: [\n");
  gateway().send_signal(SIGHUP);
  ASSERT_TRUE(wait_count(gateway(), kFailed, 1)) << gateway().log();
  gateway().write_config(replace_once(original_, "    plugin: gemini\n", "    plugin: no-such-plugin\n"));
  gateway().send_signal(SIGHUP);
  ASSERT_TRUE(wait_count(gateway(), kFailed, 2)) << gateway().log();
  const std::string log = gateway().log();
  EXPECT_NE(log.find("no-such-plugin"), std::string::npos) << log;
  // One line each: the reason is on the line that says the config stays.
  const auto at = log.rfind(kFailed);
  EXPECT_NE(log.substr(at, log.find('\n', at) - at).find("no-such-plugin"), std::string::npos);

  // Still the last good configuration.
  EXPECT_EQ(post_chat(port(), key(), chat_body("fresh-alias", "still here")).status, 200);
  EXPECT_EQ(http_get(port(), "/healthz").status, 200);
  EXPECT_EQ(count_of(gateway().log(), kApplied), 1u);
}

TEST_F(ReloadTest, ReloadCommandChecksTheFileThenSignalsTheGateway) {
  // A broken file is refused by the command; the gateway is not signalled.
  gateway().write_config("catalog: [\n");
  const auto refused = gateway().cli({"reload"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("invalid configuration"), std::string::npos) << refused.err;
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(count_of(gateway().log(), kFailed), 0u) << gateway().log();

  // A good one, with a restart-only change beside a new alias.
  std::string next = replace_once(original_, "server:\n", "server:\n  keep_alive_timeout_ms: 5000\n");
  gateway().write_config(next + alias_line("cli-alias", "gpt-4o-mini"));
  const auto sent = gateway().cli({"reload"});
  EXPECT_EQ(sent.exit_code, 0) << sent.err;
  EXPECT_NE(sent.out.find("sent SIGHUP"), std::string::npos) << sent.out;
  ASSERT_TRUE(wait_count(gateway(), kApplied, 1)) << gateway().log();
  EXPECT_NE(gateway().log().find("reload: server changed"), std::string::npos) << gateway().log();
  EXPECT_EQ(post_chat(port(), key(), chat_body("cli-alias", "via the cli")).status, 200);

  // --pid names the process when the config has no pid file.
  const auto by_pid = gateway().cli({"reload", "--pid", std::to_string(gateway().pid())});
  EXPECT_EQ(by_pid.exit_code, 0) << by_pid.err;
  ASSERT_TRUE(wait_count(gateway(), kApplied, 2)) << gateway().log();
}

}  // namespace
}  // namespace it
