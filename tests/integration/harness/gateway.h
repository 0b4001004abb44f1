// One modelgw instance for a test: a fresh temp dir holding its config, its
// SQLite file and its stderr log; tenants and keys made with the real CLI;
// `serve` started and waited for (bounded), stopped and reaped on destruction.
#pragma once

#include "harness/process.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace it {

// The provider key the fake upstream demands; the gateway gets it through
// ${FAKE_KEY}. Long enough for the gateway's redactor to look for pieces of it.
inline constexpr const char* kProviderKey = "sk-itprov-7Hq2Lm9Xw4Rt8Vb3Np6KdZ5s";

struct CatalogEntry {
  std::string alias;
  std::string provider;  // "openai" (the fake) or "dead" (a closed port)
  std::string model;
};

// Aliases for the plain model and for each fault of the fake upstream.
std::vector<CatalogEntry> standard_catalog();

// A tier alias and the concrete aliases it routes to, in order.
struct TierEntry {
  std::string alias;
  std::vector<std::string> route;
};

struct GatewayOptions {
  int upstream_port = 0;  // the fake upstream
  std::size_t max_body_bytes = 65536;
  int flush_interval_ms = 50;  // 0: the gateway's default
  int key_cache_ttl_ms = 100;
  int timeout_ms = 1500;         // first_byte_timeout_ms of every provider
  int total_timeout_ms = 20000;  // timeout_ms (the whole call) of every provider
  // Retries are off unless a test turns them on, so fault tests see one attempt.
  int retry_max_attempts = 1;
  int retry_base_ms = 20;
  int retry_max_wait_ms = 2000;
  int retry_budget_ms = 5000;
  int max_connections = 0;  // of every provider; 0: the default
  std::vector<CatalogEntry> catalog = standard_catalog();
  std::vector<TierEntry> tiers;
  std::string extra_catalog_yaml;    // lines under `catalog:`, indented two spaces
  std::string extra_providers_yaml;  // lines under `providers:`, indented two spaces
  std::string extra_auth_yaml;       // lines under `auth:`, indented two spaces
  std::string extra_server_yaml;     // lines under `server:`, indented two spaces
  std::string extra_provider_yaml;   // lines added to every provider, indented four spaces
  std::string pii_yaml;              // a whole `pii:` section; empty: the defaults (flag)
  std::string extra_yaml;            // whole top-level sections (budget:, rate_limits:), appended
  std::string extra_usage_yaml;      // lines under `usage:`, indented two spaces
  std::string extra_logging_yaml;    // lines under `logging:`, indented two spaces
  std::string journal_path;          // usage.journal_path; empty: one in the gateway's temp dir
  int storage_busy_timeout_ms = 0;   // the sqlite plugin's busy_timeout_ms; 0: its default
  std::string db_path;               // the SQLite file; empty: one in the gateway's temp dir.
                                     // Two gateways given one path share a store (scale-out tests).
  std::string storage_yaml;          // a whole `storage:` section replacing the SQLite one (PostgreSQL)
  std::string openai_base_url;       // replaces the fake's address for provider "openai"
  std::string openai_ca_file;        // ca_file of provider "openai"
  Env env;                           // added to the gateway's environment
};

// A port that was free a moment ago (bound to 0, read, closed).
int free_port();

class Gateway {
 public:
  explicit Gateway(GatewayOptions options);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& config_path() const { return config_path_; }
  std::string db_path() const { return options_.db_path.empty() ? dir_ + "/modelgw.db" : options_.db_path; }
  std::string log_path() const { return dir_ + "/gateway.stderr.log"; }
  int port() const { return port_; }
  int dead_port() const { return dead_port_; }
  // The serving process (0 before start()).
  int pid() const;

  // Replaces the config file (for CLI tests of bad configs).
  void write_config(const std::string& text) const;
  std::string config_text() const;
  // modelgw <args...> --config <this config>, run to exit.
  RunResult cli(std::vector<std::string> args) const;

  void create_tenant(const std::string& name) const;  // throws on failure
  struct Key {
    std::string key;
    std::int64_t id = 0;
  };
  Key create_key(const std::string& tenant, const std::string& scopes = {}) const;

  // modelgw serve; returns once it logged "listening" and /healthz said 200.
  void start();
  bool running();
  void send_signal(int sig) const;
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  int stop(std::chrono::milliseconds grace = std::chrono::seconds(15));
  // SIGKILL, as a crash would: reaped at once, not reported as a failed exit.
  void kill();

  // Everything serve wrote to stderr so far.
  std::string log() const;
  bool wait_log(const std::string& needle, std::chrono::milliseconds timeout) const;

 private:
  Env serve_env() const;

  GatewayOptions options_;
  std::string dir_;
  std::string config_path_;
  int port_ = 0;
  int dead_port_ = 0;
  std::unique_ptr<ChildProcess> serve_;
};

Env gateway_env();

}  // namespace it
