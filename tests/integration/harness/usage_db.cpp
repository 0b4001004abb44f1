#include "harness/usage_db.h"

#include <sqlite3.h>

#include <memory>
#include <stdexcept>
#include <thread>

namespace it {
namespace {

struct Closer {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct Finalizer {
  void operator()(sqlite3_stmt* st) const { sqlite3_finalize(st); }
};
using Db = std::unique_ptr<sqlite3, Closer>;
using Statement = std::unique_ptr<sqlite3_stmt, Finalizer>;

Db open_read_only(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    throw std::runtime_error("cannot open " + path + ": " + (raw ? sqlite3_errmsg(raw) : "out of memory"));
  }
  sqlite3_busy_timeout(raw, 5000);
  return db;
}

Statement prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("cannot prepare '") + sql + "': " + sqlite3_errmsg(db));
  }
  return Statement(raw);
}

std::string text_column(sqlite3_stmt* st, int i) {
  const auto* p = sqlite3_column_text(st, i);
  return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p));
}

}  // namespace

std::int64_t unix_ms_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::vector<UsageRecord> UsageDb::records_for(const std::string& request_id) const {
  auto db = open_read_only(path_);
  auto st =
      prepare(db.get(),
              "SELECT request_id, tenant_id, key_id, alias, provider, upstream_model, prompt_tokens, "
              "completion_tokens, total_tokens, http_status, error_code, latency_us, ttft_us, streamed, "
              "created_unix_ms, prompt_name, prompt_version, pii_action, pii_findings FROM usage_records "
              "WHERE request_id = ?1 ORDER BY id");
  sqlite3_bind_text(st.get(), 1, request_id.c_str(), static_cast<int>(request_id.size()), SQLITE_TRANSIENT);
  std::vector<UsageRecord> out;
  while (true) {
    const int rc = sqlite3_step(st.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW)
      throw std::runtime_error(std::string("usage query failed: ") + sqlite3_errmsg(db.get()));
    UsageRecord r;
    r.request_id = text_column(st.get(), 0);
    r.tenant_id = sqlite3_column_int64(st.get(), 1);
    r.key_id = sqlite3_column_int64(st.get(), 2);
    r.alias = text_column(st.get(), 3);
    r.provider = text_column(st.get(), 4);
    r.upstream_model = text_column(st.get(), 5);
    r.prompt_tokens = sqlite3_column_int64(st.get(), 6);
    r.completion_tokens = sqlite3_column_int64(st.get(), 7);
    r.total_tokens = sqlite3_column_int64(st.get(), 8);
    r.http_status = sqlite3_column_int64(st.get(), 9);
    r.error_code = text_column(st.get(), 10);
    r.latency_us = sqlite3_column_int64(st.get(), 11);
    r.ttft_us = sqlite3_column_int64(st.get(), 12);
    r.streamed = sqlite3_column_int64(st.get(), 13);
    r.created_unix_ms = sqlite3_column_int64(st.get(), 14);
    r.prompt_name = text_column(st.get(), 15);
    r.prompt_version = sqlite3_column_int64(st.get(), 16);
    r.pii_action = text_column(st.get(), 17);
    r.pii_findings = text_column(st.get(), 18);
    out.push_back(std::move(r));
  }
  return out;
}

std::int64_t UsageDb::count_all() const {
  auto db = open_read_only(path_);
  auto st = prepare(db.get(), "SELECT COUNT(*) FROM usage_records");
  if (sqlite3_step(st.get()) != SQLITE_ROW) throw std::runtime_error("count failed");
  return sqlite3_column_int64(st.get(), 0);
}

void UsageDb::exec(const std::string& sql) const {
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(raw);
    throw std::runtime_error("cannot open " + path_);
  }
  sqlite3_busy_timeout(raw, 5000);
  char* err = nullptr;
  const int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &err);
  const std::string why = err != nullptr ? err : "";
  sqlite3_free(err);
  sqlite3_close(raw);
  if (rc != SQLITE_OK) throw std::runtime_error("sql failed: " + why);
}

std::int64_t UsageDb::count_audit(std::int64_t tenant_id, const std::string& action) const {
  auto db = open_read_only(path_);
  auto st = prepare(db.get(), "SELECT COUNT(*) FROM audit_events WHERE tenant_id = ?1 AND action = ?2");
  sqlite3_bind_int64(st.get(), 1, tenant_id);
  sqlite3_bind_text(st.get(), 2, action.c_str(), static_cast<int>(action.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.get()) != SQLITE_ROW) throw std::runtime_error("count failed");
  return sqlite3_column_int64(st.get(), 0);
}

std::optional<std::int64_t> UsageDb::tenant_id(const std::string& name) const {
  auto db = open_read_only(path_);
  auto st = prepare(db.get(), "SELECT id FROM tenants WHERE name = ?1");
  sqlite3_bind_text(st.get(), 1, name.c_str(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.get()) != SQLITE_ROW) return std::nullopt;
  return sqlite3_column_int64(st.get(), 0);
}

std::optional<UsageRecord> UsageDb::wait_for(const std::string& request_id,
                                             std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto rows = records_for(request_id);
    if (!rows.empty()) return rows.front();
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace it
