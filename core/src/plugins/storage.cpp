#include "plugins/storage.h"

#include "plugins/plugin_error.h"

#include <modelgw/sdk.hpp>

namespace modelgw::plugins {
namespace {

struct ErrorText {
  std::string text;
  mgw_text_sink sink{this,
                     [](void* self, mgw_str t) { static_cast<ErrorText*>(self)->text.append(mgw::view(t)); }};
};

// Collects rows of every type; each call uses the vector it expects.
struct Rows {
  std::vector<Tenant> tenants;
  std::vector<ApiKeyRow> keys;
  std::vector<UsageRow> usage;
  mgw_row_sink sink{this, &Rows::on_tenant, &Rows::on_key, &Rows::on_usage};

  static std::string s(mgw_str v) { return std::string(mgw::view(v)); }
  static void on_tenant(void* self, const mgw_tenant_record* r) {
    static_cast<Rows*>(self)->tenants.push_back(Tenant{r->id, s(r->name), r->created_unix_ms});
  }
  static void on_key(void* self, const mgw_api_key_record* r) {
    static_cast<Rows*>(self)->keys.push_back(ApiKeyRow{r->id, r->tenant_id, s(r->tenant_name), s(r->key_hash),
                                                       s(r->display_prefix), s(r->scopes), r->created_unix_ms,
                                                       r->revoked_unix_ms});
  }
  static void on_usage(void* self, const mgw_usage_record* r) {
    UsageRow u;
    u.request_id = s(r->request_id);
    u.tenant_id = r->tenant_id;
    u.key_id = r->key_id;
    u.alias = s(r->alias);
    u.provider = s(r->provider);
    u.upstream_model = s(r->upstream_model);
    u.prompt_tokens = r->prompt_tokens;
    u.completion_tokens = r->completion_tokens;
    u.total_tokens = r->total_tokens;
    u.http_status = r->http_status;
    u.error_code = s(r->error_code);
    u.latency_us = r->latency_us;
    u.ttft_us = r->ttft_us;
    u.streamed = r->streamed != 0;
    u.created_unix_ms = r->created_unix_ms;
    static_cast<Rows*>(self)->usage.push_back(std::move(u));
  }
};

const char* status_name(mgw_status s) {
  switch (s) {
    case MGW_NOT_FOUND:
      return "not found";
    case MGW_INVALID_ARGUMENT:
      return "invalid argument";
    case MGW_UNSUPPORTED:
      return "unsupported";
    case MGW_CONFLICT:
      return "conflict";
    case MGW_UNAVAILABLE:
      return "unavailable";
    default:
      return "internal error";
  }
}

void check(mgw_status status, const ErrorText& error, const char* what) {
  if (status == MGW_OK) return;
  std::string msg = std::string("storage: ") + what + " failed (" + status_name(status) + ")";
  if (!error.text.empty()) msg += ": " + error.text;
  throw StorageError(status, msg);
}

mgw_usage_record to_record(const UsageRow& u) {
  mgw_usage_record r{};
  r.struct_size = sizeof r;
  r.request_id = mgw::str(u.request_id);
  r.tenant_id = u.tenant_id;
  r.key_id = u.key_id;
  r.alias = mgw::str(u.alias);
  r.provider = mgw::str(u.provider);
  r.upstream_model = mgw::str(u.upstream_model);
  r.prompt_tokens = u.prompt_tokens;
  r.completion_tokens = u.completion_tokens;
  r.total_tokens = u.total_tokens;
  r.http_status = u.http_status;
  r.error_code = mgw::str(u.error_code);
  r.latency_us = u.latency_us;
  r.ttft_us = u.ttft_us;
  r.streamed = u.streamed ? 1 : 0;
  r.created_unix_ms = u.created_unix_ms;
  return r;
}

}  // namespace

Storage::Storage(std::shared_ptr<PluginLibrary> library, const nlohmann::json& options)
    : library_(std::move(library)), hooks_(library_->hooks<mgw_storage_hooks>()) {
  ErrorText error;
  const std::string config = options.dump();
  mgw_status st = hooks_.on_storage_open(library_->host(), mgw::str(config), &handle_, &error.sink);
  if (st != MGW_OK || handle_ == nullptr) {
    throw PluginError("plugin " + library_->file().string() + ": storage '" + library_->name() +
                      "' failed to open: " + (error.text.empty() ? status_name(st) : error.text));
  }
}

Storage::~Storage() {
  if (handle_ != nullptr) hooks_.on_storage_close(handle_);
}

std::int64_t Storage::create_tenant(const std::string& name, std::int64_t now_unix_ms) {
  ErrorText error;
  std::int64_t id = 0;
  check(hooks_.on_tenant_create(handle_, mgw::str(name), now_unix_ms, &id, &error.sink), error,
        "create tenant");
  return id;
}

std::optional<Tenant> Storage::find_tenant(const std::string& name) {
  ErrorText error;
  Rows rows;
  mgw_status st = hooks_.on_tenant_find(handle_, mgw::str(name), &rows.sink, &error.sink);
  if (st == MGW_NOT_FOUND || (st == MGW_OK && rows.tenants.empty())) return std::nullopt;
  check(st, error, "find tenant");
  return rows.tenants.front();
}

std::vector<Tenant> Storage::list_tenants() {
  ErrorText error;
  Rows rows;
  check(hooks_.on_tenant_list(handle_, &rows.sink, &error.sink), error, "list tenants");
  return std::move(rows.tenants);
}

std::int64_t Storage::create_api_key(const ApiKeyRow& key) {
  mgw_api_key_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = key.tenant_id;
  r.key_hash = mgw::str(key.key_hash);
  r.display_prefix = mgw::str(key.display_prefix);
  r.scopes = mgw::str(key.scopes);
  r.created_unix_ms = key.created_unix_ms;
  ErrorText error;
  std::int64_t id = 0;
  check(hooks_.on_api_key_create(handle_, &r, &id, &error.sink), error, "create api key");
  return id;
}

std::optional<ApiKeyRow> Storage::find_api_key(const std::string& key_hash) {
  ErrorText error;
  Rows rows;
  mgw_status st = hooks_.on_api_key_find_by_hash(handle_, mgw::str(key_hash), &rows.sink, &error.sink);
  if (st == MGW_NOT_FOUND || (st == MGW_OK && rows.keys.empty())) return std::nullopt;
  check(st, error, "find api key");
  return std::move(rows.keys.front());
}

std::vector<ApiKeyRow> Storage::list_api_keys(std::int64_t tenant_id) {
  ErrorText error;
  Rows rows;
  check(hooks_.on_api_key_list(handle_, tenant_id, &rows.sink, &error.sink), error, "list api keys");
  return std::move(rows.keys);
}

bool Storage::revoke_api_key(std::int64_t key_id, std::int64_t now_unix_ms) {
  ErrorText error;
  mgw_status st = hooks_.on_api_key_revoke(handle_, key_id, now_unix_ms, &error.sink);
  if (st == MGW_NOT_FOUND) return false;
  check(st, error, "revoke api key");
  return true;
}

void Storage::insert_usage(const std::vector<UsageRow>& rows) {
  if (rows.empty()) return;
  std::vector<mgw_usage_record> records;
  records.reserve(rows.size());
  for (const auto& u : rows) records.push_back(to_record(u));
  ErrorText error;
  check(hooks_.on_usage_insert(handle_, records.data(), records.size(), &error.sink), error, "insert usage");
}

std::vector<UsageRow> Storage::query_usage(const UsageQuery& query) {
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  q.tenant_id = query.tenant_id;
  q.request_id = mgw::str(query.request_id);
  q.since_unix_ms = query.since_unix_ms;
  q.until_unix_ms = query.until_unix_ms;
  q.limit = query.limit;
  ErrorText error;
  Rows rows;
  check(hooks_.on_usage_query(handle_, &q, &rows.sink, &error.sink), error, "query usage");
  return std::move(rows.usage);
}

}  // namespace modelgw::plugins
