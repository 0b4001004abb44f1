// The gateway's configuration, as validated plain data. Loaded once at start-up
// by config_loader; nothing reads YAML after that.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace modelgw::config {

// Thrown for any invalid configuration; the message starts with the key path.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ServerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  std::size_t max_body_bytes = 4 * 1024 * 1024;
  int max_connections = 4096;  // worker threads; one per open connection
  int max_queued = 1024;       // accepted connections waiting for a worker
  int keep_alive_timeout_ms = 15000;
  int shutdown_grace_ms = 30000;  // how long SIGTERM waits for in-flight requests
  int thread_stack_kib = 512;
};

struct StorageConfig {
  std::string plugin = "sqlite";
  nlohmann::json options = nlohmann::json::object();
};

struct AuthConfig {
  int key_cache_ttl_ms = 5000;  // how long a key lookup is reused; bounds revocation delay
};

struct UsageConfig {
  int flush_interval_ms = 200;
  std::size_t batch_size = 256;
  std::size_t queue_limit = 100000;
};

struct LoggingConfig {
  std::string level = "info";
};

struct ProviderConfig {
  std::string name;
  std::string plugin;
  std::string base_url;
  int timeout_ms = 60000;  // first byte and whole non-streamed call; idle gap in streams
  int connect_timeout_ms = 5000;
  int max_connections = 256;  // idle keep-alive connections kept per upstream
  std::size_t max_response_bytes = 64 * 1024 * 1024;
  nlohmann::json plugin_config;  // the whole block, handed to the plugin (holds secrets)
};

struct CatalogEntry {
  std::string alias;
  std::string provider;
  std::string model;
  std::int64_t context_window = 0;
};

struct Config {
  std::string source_path;
  ServerConfig server;
  StorageConfig storage;
  std::string plugins_dir = "./build/plugins";
  AuthConfig auth;
  UsageConfig usage;
  LoggingConfig logging;
  std::vector<ProviderConfig> providers;
  std::map<std::string, CatalogEntry> catalog;
  std::vector<std::string> unset_env_vars;  // ${VAR}s that were empty; names only
};

}  // namespace modelgw::config
