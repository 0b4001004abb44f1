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
  std::string settings_json = "{}";  // as stored; tenant/settings.h reads it
};

struct PromptVersionRow {
  std::int64_t tenant_id = 0;
  std::string name;
  std::int64_t version = 0;
  bool active = false;
  std::string template_json;
  std::string model;
  std::string parameters_json;
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
  std::string prompt_name;  // empty when no named prompt was invoked
  std::int64_t prompt_version = 0;
  std::string pii_action;    // "blocked", "masked", "flagged"; empty when nothing was found
  std::string pii_findings;  // {"email":2}: categories and counts, never values; empty for none
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
  bool set_tenant_settings(std::int64_t tenant_id, const std::string& settings_json);  // false: no tenant

  std::int64_t create_api_key(const ApiKeyRow& key);
  std::optional<ApiKeyRow> find_api_key(const std::string& key_hash);
  std::vector<ApiKeyRow> list_api_keys(std::int64_t tenant_id);
  bool revoke_api_key(std::int64_t key_id, std::int64_t now_unix_ms);  // false when unknown

  void insert_usage(const std::vector<UsageRow>& rows);
  std::vector<UsageRow> query_usage(const UsageQuery& query);

  // Named prompts. A plugin built before they existed throws StorageError
  // with status MGW_UNSUPPORTED from each of these.
  std::int64_t create_prompt_version(const PromptVersionRow& row, bool activate);  // the new number
  std::optional<PromptVersionRow> find_prompt_version(std::int64_t tenant_id, const std::string& name,
                                                      std::int64_t version);  // 0: the active one
  std::vector<PromptVersionRow> list_prompt_versions(std::int64_t tenant_id, const std::string& name);
  bool activate_prompt_version(std::int64_t tenant_id, const std::string& name,
                               std::int64_t version);  // false: no such version

  std::string plugin_name() const { return library_->name(); }

 private:
  std::shared_ptr<PluginLibrary> library_;
  // The plugin's table as it laid it out: a hook past its struct_size is absent.
  template <typename Hook>
  Hook hook(std::size_t offset, Hook mgw_storage_hooks::*member, const char* what) const;

  const mgw_storage_hooks& hooks_;
  mgw_storage* handle_ = nullptr;
};

}  // namespace modelgw::plugins
