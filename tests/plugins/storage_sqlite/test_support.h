// Shared pieces of the sqlite storage tests: the loaded plugin, a temporary
// folder per test, an open-storage handle, row recorders and a raw SQLite
// connection for looking at the file from outside the plugin.
#pragma once

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <modelgw/plugin.h>
#include <sqlite3.h>
#include <modelgw/sdk.hpp>
#include <modelgw/testing/fake_host.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace sqlite_test {

namespace fs = std::filesystem;

// The plugin, loaded once for the whole program like the gateway does.
struct Plugin {
  boost::dll::shared_library library{fs::path(MGW_SQLITE_PLUGIN)};
  mgw_plugin_entry_fn entry =
      &library.get<const mgw_plugin_descriptor*(const mgw_host_api*)>(MGW_ENTRY_SYMBOL);
};

inline mgw::testing::FakeHost& host() {
  static mgw::testing::FakeHost instance;
  return instance;
}

inline Plugin& plugin() {
  static Plugin instance;
  return instance;
}

inline const mgw_storage_hooks& hooks() {
  static const auto* table = static_cast<const mgw_storage_hooks*>(plugin().entry(host().api())->hooks);
  return *table;
}

// A folder of its own, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "mgw_sqlite_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// What on_storage_open answered.
struct OpenResult {
  mgw_status status = MGW_INTERNAL;
  mgw_storage* storage = nullptr;
  std::string error;
};

inline OpenResult open_storage(const std::string& config_json) {
  OpenResult result;
  mgw::testing::TextRecorder error;
  result.status = hooks().on_storage_open(host().api(), mgw::str(config_json), &result.storage, &error.sink);
  result.error = error.text;
  return result;
}

// {"path": "<path>"}, plus extra members when given (e.g. "\"busy_timeout_ms\": 50").
inline std::string config_for(const fs::path& path, const std::string& extra = {}) {
  std::string json = "{\"path\": \"" + path.string() + "\"";
  if (!extra.empty()) json += ", " + extra;
  return json + "}";
}

// An open storage handle, closed at the end of its scope.
class Storage {
 public:
  explicit Storage(const fs::path& path, const std::string& extra = {}) {
    auto result = open_storage(config_for(path, extra));
    if (result.status != MGW_OK)
      throw std::runtime_error("on_storage_open failed (" + std::to_string(result.status) +
                               "): " + result.error);
    storage_ = result.storage;
  }
  ~Storage() { hooks().on_storage_close(storage_); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  mgw_storage* get() const { return storage_; }

 private:
  mgw_storage* storage_ = nullptr;
};

// Rows copied out of the borrowed records a row sink receives.
struct Tenant {
  int64_t id = 0;
  std::string name;
  int64_t created_unix_ms = 0;
  std::string settings_json = "{}";
};

struct PromptVersion {
  int64_t tenant_id = 0;
  std::string name;
  int64_t version = 0;
  bool active = false;
  std::string template_json = R"([{"role":"system","content":"Be {{tone}}."}])";
  std::string model = "fast";
  std::string parameters_json = R"({"temperature":0.2})";
  int64_t created_unix_ms = 1000;

  // Views into this object: not callable on a temporary, whose strings would dangle.
  mgw_prompt_version_record record() const& {
    mgw_prompt_version_record r{};
    r.struct_size = sizeof r;
    r.tenant_id = tenant_id;
    r.name = mgw::str(name);
    r.version = version;
    r.active = active ? 1 : 0;
    r.template_json = mgw::str(template_json);
    r.model = mgw::str(model);
    r.parameters_json = mgw::str(parameters_json);
    r.created_unix_ms = created_unix_ms;
    return r;
  }
  mgw_prompt_version_record record() const&& = delete;
};

struct ApiKey {
  int64_t id = 0;
  int64_t tenant_id = 0;
  std::string tenant_name, key_hash, display_prefix, scopes;
  int64_t created_unix_ms = 0;
  int64_t revoked_unix_ms = 0;
};

// A usage record that owns its strings; record() views them.
struct Usage {
  std::string request_id;
  int64_t tenant_id = 0;
  int64_t key_id = 0;
  std::string alias = "fast";
  std::string provider = "openai";
  std::string upstream_model = "gpt-4o-mini";
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
  int32_t http_status = 200;
  std::string error_code;
  int64_t latency_us = 0;
  int64_t ttft_us = -1;
  int32_t streamed = 0;
  int64_t created_unix_ms = 0;
  std::string prompt_name;
  int64_t prompt_version = 0;
  std::string pii_action;
  std::string pii_findings;
  // ABI 1.2
  int64_t seq = 0;  // read back only
  std::string feature;
  int64_t cached_prompt_tokens = 0;
  int64_t cost_micros = 0;
  std::string reason;
  std::vector<mgw_ledger_charge> charges;  // inserted only

  // Views into this object: not callable on a temporary, whose strings would dangle.
  mgw_usage_record record() const& {
    mgw_usage_record r{};
    r.struct_size = sizeof r;
    r.request_id = mgw::str(request_id);
    r.tenant_id = tenant_id;
    r.key_id = key_id;
    r.alias = mgw::str(alias);
    r.provider = mgw::str(provider);
    r.upstream_model = mgw::str(upstream_model);
    r.prompt_tokens = prompt_tokens;
    r.completion_tokens = completion_tokens;
    r.total_tokens = total_tokens;
    r.http_status = http_status;
    r.error_code = mgw::str(error_code);
    r.latency_us = latency_us;
    r.ttft_us = ttft_us;
    r.streamed = streamed;
    r.created_unix_ms = created_unix_ms;
    r.prompt_name = mgw::str(prompt_name);
    r.prompt_version = prompt_version;
    r.pii_action = mgw::str(pii_action);
    r.pii_findings = mgw::str(pii_findings);
    r.feature = mgw::str(feature);
    r.cached_prompt_tokens = cached_prompt_tokens;
    r.cost_micros = cost_micros;
    r.reason = mgw::str(reason);
    r.charges = charges.empty() ? nullptr : charges.data();
    r.charge_count = charges.size();
    return r;
  }

  mgw_usage_record record() const&& = delete;

  // Equal as stored: the read-only seq and the insert-only charges aside.
  bool operator==(const Usage& o) const {
    auto key = [](const Usage& u) {
      return std::tie(u.request_id, u.tenant_id, u.key_id, u.alias, u.provider, u.upstream_model,
                      u.prompt_tokens, u.completion_tokens, u.total_tokens, u.http_status, u.error_code,
                      u.latency_us, u.ttft_us, u.streamed, u.created_unix_ms, u.prompt_name, u.prompt_version,
                      u.pii_action, u.pii_findings, u.feature, u.cached_prompt_tokens, u.cost_micros,
                      u.reason);
    };
    return key(*this) == key(o);
  }
};

inline std::string s(mgw_str text) {
  return std::string(mgw::view(text));
}

struct Budget {
  int64_t id = 0;
  int64_t tenant_id = 0;
  std::string scope, subject, name, window;
  int64_t limit_micros = 0;
  int64_t created_unix_ms = 0;
};

struct Group {
  std::string key;
  int64_t requests = 0, prompt_tokens = 0, completion_tokens = 0, total_tokens = 0, cost_micros = 0;
};

struct RowRecorder {
  std::vector<Budget> budgets;
  std::vector<Group> groups;
  std::vector<Tenant> tenants;
  std::vector<ApiKey> keys;
  std::vector<Usage> usage;
  std::vector<PromptVersion> prompts;

  mgw_row_sink sink{sizeof(mgw_row_sink),
                    this,
                    [](void* self, const mgw_tenant_record* r) {
                      static_cast<RowRecorder*>(self)->tenants.push_back(
                          {r->id, s(r->name), r->created_unix_ms, s(r->settings_json)});
                    },
                    [](void* self, const mgw_api_key_record* r) {
                      static_cast<RowRecorder*>(self)->keys.push_back(
                          {r->id, r->tenant_id, s(r->tenant_name), s(r->key_hash), s(r->display_prefix),
                           s(r->scopes), r->created_unix_ms, r->revoked_unix_ms});
                    },
                    [](void* self, const mgw_usage_record* r) {
                      Usage u;
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
                      u.streamed = r->streamed;
                      u.created_unix_ms = r->created_unix_ms;
                      u.prompt_name = s(r->prompt_name);
                      u.prompt_version = r->prompt_version;
                      u.pii_action = s(r->pii_action);
                      u.pii_findings = s(r->pii_findings);
                      u.seq = r->seq;
                      u.feature = s(r->feature);
                      u.cached_prompt_tokens = r->cached_prompt_tokens;
                      u.cost_micros = r->cost_micros;
                      u.reason = s(r->reason);
                      static_cast<RowRecorder*>(self)->usage.push_back(std::move(u));
                    },
                    [](void* self, const mgw_prompt_version_record* r) {
                      static_cast<RowRecorder*>(self)->prompts.push_back(
                          {r->tenant_id, s(r->name), r->version, r->active != 0, s(r->template_json),
                           s(r->model), s(r->parameters_json), r->created_unix_ms});
                    },
                    [](void* self, const mgw_budget_record* r) {
                      static_cast<RowRecorder*>(self)->budgets.push_back(
                          {r->id, r->tenant_id, s(r->scope), s(r->subject), s(r->name), s(r->window),
                           r->limit_micros, r->created_unix_ms});
                    },
                    [](void* self, const mgw_usage_group* r) {
                      static_cast<RowRecorder*>(self)->groups.push_back(
                          {s(r->key), r->requests, r->prompt_tokens, r->completion_tokens, r->total_tokens,
                           r->cost_micros});
                    },
                    nullptr,   // idempotency rows: idempotency_test.cpp has its own sink
                    nullptr};  // audit events: audit_test.cpp has its own sink
};

// A well-formed stand-in for a key's SHA-256: 64 lowercase hex digits.
inline std::string fake_hash(uint64_t n) {
  char buffer[65];
  std::snprintf(buffer, sizeof buffer, "%064" PRIx64, n);
  return buffer;
}

// A key record whose strings live as long as this object.
struct NewKey {
  int64_t tenant_id = 0;
  std::string key_hash;
  std::string display_prefix = "mgw_abcd";
  std::string scopes = "chat";
  int64_t created_unix_ms = 1000;

  // Views into this object: not callable on a temporary, whose strings would dangle.
  mgw_api_key_record record() const& {
    mgw_api_key_record r{};
    r.struct_size = sizeof r;
    r.tenant_id = tenant_id;
    r.key_hash = mgw::str(key_hash);
    r.display_prefix = mgw::str(display_prefix);
    r.scopes = mgw::str(scopes);
    r.created_unix_ms = created_unix_ms;
    return r;
  }
  mgw_api_key_record record() const&& = delete;
};

// A plain SQLite connection to the same file, as another program would open it.
class RawDb {
 public:
  explicit RawDb(const fs::path& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error(sqlite3_errmsg(db_));
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  void exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message != nullptr ? message : "?";
      sqlite3_free(message);
      throw std::runtime_error(sql + ": " + text);
    }
  }

  // Every row of the first column, as text.
  std::vector<std::string> column(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
    std::vector<std::string> values;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(stmt, 0);
      values.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    sqlite3_finalize(stmt);
    return values;
  }

  std::string text(const std::string& sql) {
    auto values = column(sql);
    return values.empty() ? std::string() : values.front();
  }

  int64_t integer(const std::string& sql) { return std::stoll(text(sql)); }

 private:
  sqlite3* db_ = nullptr;
};

// Base fixture: a fresh folder and the path of a database file inside it.
class StorageTest : public ::testing::Test {
 protected:
  fs::path db_path() const { return dir_.path() / "gateway.db"; }
  const mgw_storage_hooks& h() const { return hooks(); }

  int64_t create_tenant(mgw_storage* storage, const std::string& name, int64_t now = 1000) {
    int64_t id = 0;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_tenant_create(storage, mgw::str(name), now, &id, &error.sink), MGW_OK) << error.text;
    return id;
  }

  int64_t create_key(mgw_storage* storage, const NewKey& key) {
    int64_t id = 0;
    auto record = key.record();
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_api_key_create(storage, &record, &id, &error.sink), MGW_OK) << error.text;
    return id;
  }

  void insert_usage(mgw_storage* storage, const std::vector<Usage>& rows) {
    std::vector<mgw_usage_record> records;
    for (const auto& row : rows) records.push_back(row.record());
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_usage_insert(storage, records.data(), records.size(), &error.sink), MGW_OK)
        << error.text;
  }

  TempDir dir_;
};

}  // namespace sqlite_test
