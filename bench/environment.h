// The system under test: a temp dir, the upstream (the bench mock, or
// fake_upstream), and modelgw configured in front of it with two tenants and
// an API key each: `bench` (the plain path: nothing to hold) and `money` (the
// money path: a month budget, a day budget of a feature, a credit account and
// rate limits). The constructor returns once both answer; the destructor
// stops both and removes the temp dir.
#pragma once

#include "process.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bench {

struct EnvironmentOptions {
  std::string modelgw_bin;
  std::string mock_upstream_bin;  // the upstream, unless fake_upstream_bin is set
  int mock_threads = 1;
  std::string fake_upstream_bin;  // set: tests/fake_upstream instead (thread per connection)
  std::string plugin_dir;
  std::string stream_model;      // upstream model string of the "slowstream" alias
  std::string sse_stream_model;  // upstream model string of the "ssebench" alias
  int max_streams = 1000;        // sizes thread and connection limits (streams or attackers held at once)
  int concurrency = 16;
  bool keep_temp = false;
  std::string pii_mode = "flag";  // pii.default_mode of the gateway under test
  bool access_log = true;         // logging.access_log
  bool default_caps = false;      // leave server/provider max_connections unset (the packaged defaults)
};

class Environment {
 public:
  static constexpr const char* kUpstreamKey = "bench-key";
  static constexpr const char* kModelAlias = "gpt-4o-mini";
  static constexpr const char* kStreamAlias = "slowstream";
  static constexpr const char* kSseAlias = "ssebench";
  // The providers in front of the mock: the openai plugin translating the
  // Responses API to chat (as for any OpenAI-compatible host), and the same
  // plugin with native_operations: [responses], sent it as it is.
  static constexpr const char* kProvider = "openai";
  static constexpr const char* kNativeProvider = "openai_native";
  // Aliases on the native provider: kModelAlias's and kSseAlias's upstream models.
  static constexpr const char* kNativeAlias = "gpt-4o-mini-native";
  static constexpr const char* kNativeSseAlias = "ssebench-native";
  // Scenario (f): the anthropic plugin on the same mock (POST /v1/messages
  // sent natively to its /v1/messages), and an embedding model on kProvider
  // named as the mock's (so nginx and modelgw are sent the same bytes).
  static constexpr const char* kAnthropicProvider = "anthropic";
  static constexpr const char* kAnthropicAlias = "claude-bench";
  static constexpr const char* kAnthropicModel = "claude-sonnet-4-5";
  static constexpr const char* kEmbeddingAlias = "text-embedding-3-small";
  // The stream models are the fake upstream's fault names, not in the price dataset.
  static constexpr const char* kPrices = "{ input: 0.15, output: 0.60 }";
  static constexpr const char* kAnthropicPrices = "{ input: 3.00, output: 15.00 }";
  static constexpr const char* kEmbeddingPrices = "{ input: 0.02, output: 0 }";
  // The money path's tenant and the feature its requests name (X-Feature):
  // every request holds and settles on a month budget of the tenant, a day
  // budget of the feature and the credit account, and counts against the
  // tenant's and the key's rate limits, none of them ever reached.
  static constexpr const char* kTenant = "bench";
  static constexpr const char* kMoneyTenant = "money";
  static constexpr const char* kMoneyFeature = "search";
  static constexpr const char* kMoneyLimitUsd = "1000000";
  static constexpr std::int64_t kMoneyRequestsPerMinute = 100'000'000;
  static constexpr std::int64_t kMoneyTokensPerMinute = 1'000'000'000;

  // Throws std::runtime_error with the reason (and log tails) on failure.
  explicit Environment(const EnvironmentOptions& options);
  ~Environment();

  std::uint16_t upstream_port() const { return upstream_port_; }
  std::uint16_t gateway_port() const { return gateway_port_; }
  const std::string& gateway_key() const { return gateway_key_; }  // tenant kTenant
  const std::string& money_key() const { return money_key_; }      // tenant kMoneyTenant
  // The header line the money path's requests carry ("X-Feature: ...\r\n").
  static std::string money_headers();
  pid_t gateway_pid() const { return gateway_ ? gateway_->pid() : -1; }
  pid_t upstream_pid() const { return upstream_ ? upstream_->pid() : -1; }
  const std::string& temp_dir() const { return temp_dir_string_; }
  std::string gateway_log_tail(std::size_t lines) const;
  std::string upstream_log_tail(std::size_t lines) const;

  const std::string& upstream_name() const { return upstream_name_; }
  // Empty while modelgw runs; how it ended ("signal 6") once it has exited.
  std::string gateway_exit();

  // Stops the gateway, then the upstream (SIGTERM, SIGKILL after 10 s each);
  // returns how each ended, e.g. "modelgw: exit 0, bench_mock_upstream: exit 0".
  std::string stop();

 private:
  void start_upstream(const EnvironmentOptions& o);
  void write_config(const EnvironmentOptions& o);
  void create_key(const EnvironmentOptions& o);
  void create_money_tenant(const EnvironmentOptions& o);
  // Runs `modelgw <args> --config <config>`; its stdout, or throws with its stderr.
  std::string cli(const EnvironmentOptions& o, std::vector<std::string> args);
  void start_gateway(const EnvironmentOptions& o);

  TempDir temp_;
  std::string temp_dir_string_;
  std::string config_path_;
  std::unique_ptr<ChildProcess> upstream_;
  std::unique_ptr<ChildProcess> gateway_;
  std::uint16_t upstream_port_ = 0;
  std::uint16_t gateway_port_ = 0;
  std::string gateway_key_;
  std::string money_key_;
  std::string upstream_name_;
};

}  // namespace bench
