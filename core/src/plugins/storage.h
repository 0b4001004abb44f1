// The gateway's view of its storage plugin: typed C++ calls over
// mgw_storage_hooks, owning copies of every row.
#pragma once

#include "plugins/plugin_library.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace modelgw::plugins {

class StorageError : public std::runtime_error {
 public:
  StorageError(mgw_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  mgw_status status() const { return status_; }

 private:
  mgw_status status_;
};

struct Tenant {
  std::int64_t id = 0;
  std::string name;
  std::int64_t created_unix_ms = 0;
};

struct ApiKeyRow {
  std::int64_t id = 0;
  std::int64_t tenant_id = 0;
  std::string tenant_name;
  std::string key_hash;
  std::string display_prefix;
  std::string scopes;
  std::int64_t created_unix_ms = 0;
  std::int64_t revoked_unix_ms = 0;
};

struct UsageRow {
  std::string request_id;
  std::int64_t tenant_id = 0;
  std::int64_t key_id = 0;
  std::string alias;
  std::string provider;
  std::string upstream_model;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t total_tokens = 0;
  int http_status = 0;
  std::string error_code;
  std::int64_t latency_us = 0;
  std::int64_t ttft_us = -1;
  bool streamed = false;
  std::int64_t created_unix_ms = 0;
};

struct UsageQuery {
  std::int64_t tenant_id = 0;
  std::string request_id;
  std::int64_t since_unix_ms = 0;
  std::int64_t until_unix_ms = 0;
  std::int64_t limit = 0;
};

class Storage {
 public:
  // Opens the store; throws PluginError with the plugin's reason.
  Storage(std::shared_ptr<PluginLibrary> library, const nlohmann::json& options);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // Each call throws StorageError on failure; a conflict has status MGW_CONFLICT.
  std::int64_t create_tenant(const std::string& name, std::int64_t now_unix_ms);
  std::optional<Tenant> find_tenant(const std::string& name);
  std::vector<Tenant> list_tenants();

  std::int64_t create_api_key(const ApiKeyRow& key);
  std::optional<ApiKeyRow> find_api_key(const std::string& key_hash);
  std::vector<ApiKeyRow> list_api_keys(std::int64_t tenant_id);
  bool revoke_api_key(std::int64_t key_id, std::int64_t now_unix_ms);  // false when unknown

  void insert_usage(const std::vector<UsageRow>& rows);
  std::vector<UsageRow> query_usage(const UsageQuery& query);

  std::string plugin_name() const { return library_->name(); }

 private:
  std::shared_ptr<PluginLibrary> library_;
  const mgw_storage_hooks& hooks_;
  mgw_storage* handle_ = nullptr;
};

}  // namespace modelgw::plugins
