// Idempotency-key hooks (ABI 1.3). A claim is one write transaction (BEGIN
// IMMEDIATE: processes sharing the file take turns), so of two requests that
// send the same key at once exactly one gets MGW_OK and makes the call; the
// other sees its PENDING row. Complete and release touch only the row the
// caller claimed (same owner), so a holder whose claim lapsed and was taken
// over cannot overwrite or free the new holder's key.
#include <modelgw/sdk.hpp>

#include <cstdint>
#include <string_view>

#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

constexpr std::size_t kMaxKeyBytes = 255;

std::string_view key_arg(mgw_str key) {
  const auto k = bytes_arg(key, "key");
  if (k.empty() || k.size() > kMaxKeyBytes)
    throw Failure(MGW_INVALID_ARGUMENT, "key: must be 1 to 255 bytes");
  return k;
}

void emit_row(const Statement& row, std::int64_t tenant_id, mgw_str key, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_idempotency) + sizeof(out->callback_idempotency) ||
      out->callback_idempotency == nullptr) {
    return;
  }
  mgw_idempotency_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = tenant_id;
  r.key = key;
  r.digest = row.str(0);
  r.owner = row.str(1);
  r.state = static_cast<int32_t>(row.int64(2));
  r.response = row.str(3);
  r.created_unix_ms = row.int64(4);
  r.expires_unix_ms = row.int64(5);
  out->callback_idempotency(out->host_data, &r);
}

}  // namespace

mgw_status idempotency_claim(mgw_storage* storage, const mgw_idempotency_record* claim, int64_t now_unix_ms,
                             const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency claim", [&] {
    auto& db = database_of(storage);
    if (claim == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "claim: NULL");
    const auto c = read_growable(*claim);
    const auto key = key_arg(c.key);
    const auto digest = bytes_arg(c.digest, "digest");
    const auto owner = bytes_arg(c.owner, "owner");
    if (owner.empty()) throw Failure(MGW_INVALID_ARGUMENT, "owner: empty");
    return db.write([&](Connection& conn) {
      auto live = conn.statement(
          "SELECT digest, owner, state, response, created_unix_ms, expires_unix_ms FROM idempotency_keys "
          "WHERE tenant_id = ?1 AND key = ?2 AND expires_unix_ms > ?3");
      live.bind(1, c.tenant_id);
      live.bind(2, key);
      live.bind(3, now_unix_ms);
      if (live.step()) {
        emit_row(live, c.tenant_id, c.key, out);
        return MGW_CONFLICT;
      }
      auto put = conn.statement(
          "INSERT OR REPLACE INTO idempotency_keys "
          "(tenant_id, key, digest, owner, state, response, created_unix_ms, expires_unix_ms) "
          "VALUES (?1, ?2, ?3, ?4, ?5, '', ?6, ?7)");
      put.bind(1, c.tenant_id);
      put.bind(2, key);
      put.bind(3, digest);
      put.bind(4, owner);
      put.bind(5, std::int64_t{MGW_IDEMPOTENCY_PENDING});
      put.bind(6, c.created_unix_ms);
      put.bind(7, c.expires_unix_ms);
      put.run();
      return MGW_OK;
    });
  });
}

mgw_status idempotency_complete(mgw_storage* storage, const mgw_idempotency_record* done,
                                const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency complete", [&] {
    auto& db = database_of(storage);
    if (done == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    const auto d = read_growable(*done);
    const auto key = key_arg(d.key);
    const auto owner = bytes_arg(d.owner, "owner");
    const auto response = bytes_arg(d.response, "response");
    return db.write([&](Connection& conn) {
      auto update = conn.statement(
          "UPDATE idempotency_keys SET state = ?4, response = ?5, expires_unix_ms = ?6 "
          "WHERE tenant_id = ?1 AND key = ?2 AND owner = ?3 AND state = ?7");
      update.bind(1, d.tenant_id);
      update.bind(2, key);
      update.bind(3, owner);
      update.bind(4, std::int64_t{MGW_IDEMPOTENCY_DONE});
      update.bind(5, response);
      update.bind(6, d.expires_unix_ms);
      update.bind(7, std::int64_t{MGW_IDEMPOTENCY_PENDING});
      update.run();
      return conn.changes() == 0 ? MGW_NOT_FOUND : MGW_OK;
    });
  });
}

mgw_status idempotency_release(mgw_storage* storage, int64_t tenant_id, mgw_str key, mgw_str owner,
                               const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency release", [&] {
    auto& db = database_of(storage);
    const auto k = key_arg(key);
    const auto o = bytes_arg(owner, "owner");
    return db.write([&](Connection& conn) {
      auto remove = conn.statement(
          "DELETE FROM idempotency_keys WHERE tenant_id = ?1 AND key = ?2 AND owner = ?3 AND state = ?4");
      remove.bind(1, tenant_id);
      remove.bind(2, k);
      remove.bind(3, o);
      remove.bind(4, std::int64_t{MGW_IDEMPOTENCY_PENDING});
      remove.run();
      return MGW_OK;
    });
  });
}

mgw_status idempotency_purge(mgw_storage* storage, int64_t now_unix_ms, int64_t limit, int64_t* out_removed,
                             const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency purge", [&] {
    auto& db = database_of(storage);
    if (limit <= 0) throw Failure(MGW_INVALID_ARGUMENT, "limit: must be positive");
    // Bounded batches keep each write transaction short: other processes
    // wait on it.
    const std::int64_t removed = db.write([&](Connection& conn) {
      auto remove = conn.statement(
          "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys "
          "WHERE expires_unix_ms <= ?1 LIMIT ?2)");
      remove.bind(1, now_unix_ms);
      remove.bind(2, limit);
      remove.run();
      return conn.changes();
    });
    if (out_removed != nullptr) *out_removed = removed;
    return MGW_OK;
  });
}

}  // namespace mgw_sqlite
