// Idempotency-key hooks (ABI 1.3). A claim is one write transaction (BEGIN
// IMMEDIATE: processes sharing the file take turns), so of two requests that
// send the same key at once exactly one gets MGW_OK and makes the call; the
// other sees its PENDING row. Complete and release touch only the row the
// caller claimed (same owner), so a holder whose claim lapsed and was taken
// over cannot overwrite or free the new holder's key.
#include <modelgw/sdk.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// The held row of `key` as the ABI passes it, from a row of the SELECT in
// sqlite_claim_one (digest, owner, state, response, created, expires). Its
// strings point into the statement: valid until it steps or resets.
mgw_idempotency_record held_record(const Statement& row, std::int64_t tenant_id, mgw_str key) {
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
  return r;
}

void emit_row(const Statement& row, std::int64_t tenant_id, mgw_str key, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_idempotency) + sizeof(out->callback_idempotency) ||
      out->callback_idempotency == nullptr) {
    return;
  }
  const mgw_idempotency_record r = held_record(row, tenant_id, key);
  out->callback_idempotency(out->host_data, &r);
}

// One claim's checked arguments; `refused` holds why the plugin refuses it.
struct SqliteClaimArg {
  mgw_idempotency_record record{};
  std::string_view key, digest, owner, response;
  std::string refused;
};

SqliteClaimArg sqlite_claim_arg(const mgw_idempotency_record& in, bool finishing) {
  SqliteClaimArg a;
  a.record = read_growable(in);
  try {
    a.key = key_arg(a.record.key);
    a.owner = bytes_arg(a.record.owner, "owner");
    if (!finishing) {
      a.digest = bytes_arg(a.record.digest, "digest");
      if (a.owner.empty()) throw Failure(MGW_INVALID_ARGUMENT, "owner: empty");
    } else if (a.record.state == MGW_IDEMPOTENCY_DONE) {
      a.response = bytes_arg(a.record.response, "response");
    } else if (a.record.state != MGW_IDEMPOTENCY_FREE) {
      throw Failure(MGW_INVALID_ARGUMENT, "state: must be MGW_IDEMPOTENCY_DONE or MGW_IDEMPOTENCY_FREE");
    }
  } catch (const Failure& f) {
    if (f.status() != MGW_INVALID_ARGUMENT) throw;
    a.refused = f.what();
  }
  return a;
}

// In the caller's write transaction: MGW_OK (stored) or MGW_CONFLICT (the
// live row went to held(row), unchanged). A new key (nearly every claim) is
// one statement: the insert, or the takeover of an expired row, with no
// lookup before it; only a live row is read.
template <typename Held>
mgw_status sqlite_claim_one(Connection& conn, const SqliteClaimArg& c, int64_t now_unix_ms, Held&& held) {
  auto put = conn.statement(
      "INSERT INTO idempotency_keys "
      "(tenant_id, key, digest, owner, state, response, created_unix_ms, expires_unix_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5, '', ?6, ?7) "
      "ON CONFLICT (tenant_id, key) DO UPDATE SET digest = excluded.digest, owner = excluded.owner, "
      "state = excluded.state, response = excluded.response, created_unix_ms = excluded.created_unix_ms, "
      "expires_unix_ms = excluded.expires_unix_ms WHERE idempotency_keys.expires_unix_ms <= ?8");
  put.bind(1, c.record.tenant_id);
  put.bind(2, c.key);
  put.bind(3, c.digest);
  put.bind(4, c.owner);
  put.bind(5, std::int64_t{MGW_IDEMPOTENCY_PENDING});
  put.bind(6, c.record.created_unix_ms);
  put.bind(7, c.record.expires_unix_ms);
  put.bind(8, now_unix_ms);
  put.run();
  if (conn.changes() != 0) return MGW_OK;
  auto live = conn.statement(
      "SELECT digest, owner, state, response, created_unix_ms, expires_unix_ms FROM idempotency_keys "
      "WHERE tenant_id = ?1 AND key = ?2");
  live.bind(1, c.record.tenant_id);
  live.bind(2, c.key);
  if (!live.step())
    throw Failure(MGW_INTERNAL, "idempotency claim: the key is held but its row could not be read");
  held(live);
  return MGW_CONFLICT;
}

// In the caller's write transaction: MGW_OK, or MGW_NOT_FOUND when the
// owner's PENDING row is gone.
mgw_status sqlite_complete_one(Connection& conn, const SqliteClaimArg& d) {
  auto update = conn.statement(
      "UPDATE idempotency_keys SET state = ?4, response = ?5, expires_unix_ms = ?6 "
      "WHERE tenant_id = ?1 AND key = ?2 AND owner = ?3 AND state = ?7");
  update.bind(1, d.record.tenant_id);
  update.bind(2, d.key);
  update.bind(3, d.owner);
  update.bind(4, std::int64_t{MGW_IDEMPOTENCY_DONE});
  update.bind(5, d.response);
  update.bind(6, d.record.expires_unix_ms);
  update.bind(7, std::int64_t{MGW_IDEMPOTENCY_PENDING});
  update.run();
  return conn.changes() == 0 ? MGW_NOT_FOUND : MGW_OK;
}

void sqlite_release_one(Connection& conn, int64_t tenant_id, std::string_view key, std::string_view owner) {
  auto remove = conn.statement(
      "DELETE FROM idempotency_keys WHERE tenant_id = ?1 AND key = ?2 AND owner = ?3 AND state = ?4");
  remove.bind(1, tenant_id);
  remove.bind(2, key);
  remove.bind(3, owner);
  remove.bind(4, std::int64_t{MGW_IDEMPOTENCY_PENDING});
  remove.run();
}

std::vector<SqliteClaimArg> sqlite_batch_args(const mgw_idempotency_record* rows, std::size_t count,
                                              mgw_status* out_statuses, bool finishing) {
  if (out_statuses == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "out_statuses: NULL");
  return mgw::storage::records_arg(
      rows, count, MGW_IDEMPOTENCY_RECORD_SIZE_1_3,
      [&](const mgw_idempotency_record& r) { return sqlite_claim_arg(r, finishing); });
}

}  // namespace

mgw_status idempotency_claim(mgw_storage* storage, const mgw_idempotency_record* claim, int64_t now_unix_ms,
                             const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency claim", [&] {
    auto& db = database_of(storage);
    if (claim == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "claim: NULL");
    const auto c = sqlite_claim_arg(*claim, false);
    if (!c.refused.empty()) throw Failure(MGW_INVALID_ARGUMENT, c.refused);
    return db.write([&](Connection& conn) {
      return sqlite_claim_one(conn, c, now_unix_ms, [&](const Statement& live) {
        emit_row(live, c.record.tenant_id, c.record.key, out);
      });
    });
  });
}

mgw_status idempotency_complete(mgw_storage* storage, const mgw_idempotency_record* done,
                                const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency complete", [&] {
    auto& db = database_of(storage);
    if (done == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    auto d = read_growable(*done);
    d.state = MGW_IDEMPOTENCY_DONE;
    const auto c = sqlite_claim_arg(d, true);
    if (!c.refused.empty()) throw Failure(MGW_INVALID_ARGUMENT, c.refused);
    return db.write([&](Connection& conn) { return sqlite_complete_one(conn, c); });
  });
}

mgw_status idempotency_release(mgw_storage* storage, int64_t tenant_id, mgw_str key, mgw_str owner,
                               const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency release", [&] {
    auto& db = database_of(storage);
    const auto k = key_arg(key);
    const auto o = bytes_arg(owner, "owner");
    return db.write([&](Connection& conn) {
      sqlite_release_one(conn, tenant_id, k, o);
      return MGW_OK;
    });
  });
}

// ABI 1.12: every row in one write transaction (one BEGIN IMMEDIATE and one
// commit, the cost that dominates a claim), in index order.
mgw_status idempotency_claim_batch(mgw_storage* storage, const mgw_idempotency_record* rows, size_t count,
                                   int64_t now_unix_ms, mgw_status* out_statuses, const mgw_row_sink* held,
                                   const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency claim batch", [&] {
    auto& db = database_of(storage);
    if (count == 0) return MGW_OK;
    const auto claims = sqlite_batch_args(rows, count, out_statuses, false);
    const bool deliver = held != nullptr && held->struct_size >= MGW_ROW_SINK_SIZE_1_12 &&
                         held->callback_idempotency_at != nullptr;
    return db.write([&](Connection& conn) {
      for (std::size_t i = 0; i < claims.size(); ++i) {
        const auto& c = claims[i];
        if (!c.refused.empty()) {
          out_statuses[i] = MGW_INVALID_ARGUMENT;
          continue;
        }
        out_statuses[i] = sqlite_claim_one(conn, c, now_unix_ms, [&](const Statement& live) {
          if (!deliver) return;
          const mgw_idempotency_record r = held_record(live, c.record.tenant_id, c.record.key);
          held->callback_idempotency_at(held->host_data, i, &r);
        });
      }
      return MGW_OK;
    });
  });
}

mgw_status idempotency_finish_batch(mgw_storage* storage, const mgw_idempotency_record* rows, size_t count,
                                    mgw_status* out_statuses, const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency finish batch", [&] {
    auto& db = database_of(storage);
    if (count == 0) return MGW_OK;
    const auto finishes = sqlite_batch_args(rows, count, out_statuses, true);
    return db.write([&](Connection& conn) {
      for (std::size_t i = 0; i < finishes.size(); ++i) {
        const auto& f = finishes[i];
        if (!f.refused.empty()) {
          out_statuses[i] = MGW_INVALID_ARGUMENT;
        } else if (f.record.state == MGW_IDEMPOTENCY_DONE) {
          out_statuses[i] = sqlite_complete_one(conn, f);
        } else {
          sqlite_release_one(conn, f.record.tenant_id, f.key, f.owner);
          out_statuses[i] = MGW_OK;
        }
      }
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
