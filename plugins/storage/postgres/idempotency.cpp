// Idempotency-key hooks (ABI 1.3). The primary key (tenant_id, key) decides a
// claim: one INSERT ... ON CONFLICT DO UPDATE ... WHERE the row expired, so of
// two requests that send the same key at once, in any processes, exactly one
// gets MGW_OK and makes the call; the other waits for its insert to commit
// and sees its PENDING row. Complete and release touch only the row the
// caller claimed (same owner), so a holder whose claim lapsed and was taken
// over cannot overwrite or free the new holder's key.
#include <modelgw/sdk.hpp>

#include <pqxx/pqxx>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

constexpr std::size_t kMaxKeyBytes = 255;

std::string key_arg(mgw_str key) {
  std::string k(text_arg(key, "key"));
  if (k.empty() || k.size() > kMaxKeyBytes)
    throw Failure(MGW_INVALID_ARGUMENT, "key: must be 1 to 255 bytes");
  return k;
}

// Calls give(record) with the live row of `key` (digest, owner, state,
// response, created, expires) as the ABI passes it; its strings are valid
// during the call only (the response is decoded from BYTEA for it).
template <typename Give>
void give_held_row(const pqxx::row& row, std::int64_t tenant_id, mgw_str key, Give&& give) {
  const pqxx::binarystring response(row[3]);
  mgw_idempotency_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = tenant_id;
  r.key = key;
  r.digest = str_of(row[0]);
  r.owner = str_of(row[1]);
  r.state = row[2].as<int32_t>();
  r.response = mgw_str{response.get(), response.size()};
  r.created_unix_ms = int64_of(row[4]);
  r.expires_unix_ms = int64_of(row[5]);
  give(r);
}

// The live row to the sink.
void emit_row(const pqxx::row& row, std::int64_t tenant_id, mgw_str key, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_idempotency) + sizeof(out->callback_idempotency) ||
      out->callback_idempotency == nullptr) {
    return;
  }
  give_held_row(row, tenant_id, key,
                [&](const mgw_idempotency_record& r) { out->callback_idempotency(out->host_data, &r); });
}

// One row's checked arguments; `refused` holds why the plugin refuses it.
struct PgIdemArg {
  mgw_idempotency_record record{};
  std::string key, digest, owner;
  std::string_view response;
  std::string refused;
};

PgIdemArg pg_idem_arg(const mgw_idempotency_record& in, bool finishing) {
  PgIdemArg a;
  a.record = read_growable(in);
  try {
    a.key = key_arg(a.record.key);
    a.owner = std::string(text_arg(a.record.owner, "owner"));
    if (!finishing) {
      a.digest = std::string(text_arg(a.record.digest, "digest"));
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

// In the caller's transaction: empty when claimed, else the live row that
// holds the key (locked by the claim's ON CONFLICT, so it is still there).
pqxx::result pg_claim_one(pqxx::work& tx, const PgIdemArg& c, int64_t now_unix_ms) {
  if (!tx.exec_prepared("idempotency_claim", c.record.tenant_id, c.key, c.digest, c.owner,
                        c.record.created_unix_ms, c.record.expires_unix_ms, now_unix_ms)
           .empty())
    return pqxx::result();
  auto row = tx.exec_prepared("idempotency_get", c.record.tenant_id, c.key);
  if (row.empty()) throw Failure(MGW_INTERNAL, "the key's row vanished while locked");
  return row;
}

// In the caller's transaction: MGW_OK, or MGW_NOT_FOUND when the owner's
// PENDING row is gone. Non-empty bytes go in binary format (opaque, NUL
// bytes included); an empty text parameter is an empty BYTEA.
mgw_status pg_complete_one(pqxx::work& tx, const PgIdemArg& d) {
  const auto& bytes = d.response;
  auto updated = bytes.empty() ? tx.exec_prepared("idempotency_complete", d.record.tenant_id, d.key, d.owner,
                                                  std::string(), d.record.expires_unix_ms)
                               : tx.exec_prepared("idempotency_complete", d.record.tenant_id, d.key, d.owner,
                                                  pqxx::binarystring(bytes.data(), bytes.size()),
                                                  d.record.expires_unix_ms);
  return updated.affected_rows() == 0 ? MGW_NOT_FOUND : MGW_OK;
}

// The batch's rows checked, and the order to write them in: by (tenant_id,
// key), stable, so that two batches of any processes lock the rows they
// share in the same order (no deadlock) and a key's rows keep their order.
struct PgBatch {
  std::vector<PgIdemArg> rows;
  std::vector<std::size_t> order;
};

PgBatch pg_batch(const mgw_idempotency_record* rows, std::size_t count, mgw_status* out_statuses,
                 bool finishing) {
  if (out_statuses == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "out_statuses: NULL");
  PgBatch b;
  b.rows =
      mgw::storage::records_arg(rows, count, MGW_IDEMPOTENCY_RECORD_SIZE_1_3,
                                [&](const mgw_idempotency_record& r) { return pg_idem_arg(r, finishing); });
  b.order.resize(b.rows.size());
  for (std::size_t i = 0; i < b.order.size(); ++i) b.order[i] = i;
  std::stable_sort(b.order.begin(), b.order.end(), [&](std::size_t x, std::size_t y) {
    const auto& a = b.rows[x];
    const auto& c = b.rows[y];
    return a.record.tenant_id != c.record.tenant_id ? a.record.tenant_id < c.record.tenant_id : a.key < c.key;
  });
  return b;
}

}  // namespace

mgw_status idempotency_claim(mgw_storage* storage, const mgw_idempotency_record* claim, int64_t now_unix_ms,
                             const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency claim", [&] {
    auto& db = database_of(storage);
    if (claim == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "claim: NULL");
    const auto c = pg_idem_arg(*claim, false);
    if (!c.refused.empty()) throw Failure(MGW_INVALID_ARGUMENT, c.refused);
    // Empty when claimed; otherwise the live row that holds the key.
    auto live = db.write([&](pqxx::work& tx) { return pg_claim_one(tx, c, now_unix_ms); });
    if (live.empty()) return MGW_OK;
    emit_row(live[0], c.record.tenant_id, c.record.key, out);
    return MGW_CONFLICT;
  });
}

mgw_status idempotency_complete(mgw_storage* storage, const mgw_idempotency_record* done,
                                const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency complete", [&] {
    auto& db = database_of(storage);
    if (done == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    auto d = read_growable(*done);
    d.state = MGW_IDEMPOTENCY_DONE;
    const auto c = pg_idem_arg(d, true);
    if (!c.refused.empty()) throw Failure(MGW_INVALID_ARGUMENT, c.refused);
    return db.write([&](pqxx::work& tx) { return pg_complete_one(tx, c); });
  });
}

mgw_status idempotency_release(mgw_storage* storage, int64_t tenant_id, mgw_str key, mgw_str owner,
                               const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency release", [&] {
    auto& db = database_of(storage);
    const auto k = key_arg(key);
    const std::string o(text_arg(owner, "owner"));
    return db.write([&](pqxx::work& tx) {
      tx.exec_prepared("idempotency_release", tenant_id, k, o);
      return MGW_OK;
    });
  });
}

mgw_status idempotency_purge(mgw_storage* storage, int64_t now_unix_ms, int64_t limit, int64_t* out_removed,
                             const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency purge", [&] {
    auto& db = database_of(storage);
    if (limit <= 0) throw Failure(MGW_INVALID_ARGUMENT, "limit: must be positive");
    // Bounded batches keep each transaction short; rows another purge is
    // deleting right now are skipped rather than waited for.
    const auto removed = db.write([&](pqxx::work& tx) {
      return static_cast<std::int64_t>(
          tx.exec_prepared("idempotency_purge", now_unix_ms, limit).affected_rows());
    });
    if (out_removed != nullptr) *out_removed = removed;
    return MGW_OK;
  });
}

// ABI 1.12: every row in one transaction (one BEGIN and one COMMIT, whose
// flush dominates a claim), in (tenant_id, key) order; held rows go to the
// sink after the commit, so a transaction that is retried or fails delivers
// none.
mgw_status idempotency_claim_batch(mgw_storage* storage, const mgw_idempotency_record* rows, size_t count,
                                   int64_t now_unix_ms, mgw_status* out_statuses, const mgw_row_sink* held,
                                   const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency claim batch", [&] {
    auto& db = database_of(storage);
    if (count == 0) return MGW_OK;
    const PgBatch b = pg_batch(rows, count, out_statuses, false);
    auto live = db.write([&](pqxx::work& tx) {
      std::vector<pqxx::result> found(b.rows.size());
      for (const std::size_t i : b.order) {
        if (b.rows[i].refused.empty()) found[i] = pg_claim_one(tx, b.rows[i], now_unix_ms);
      }
      return found;
    });
    const bool deliver = held != nullptr && held->struct_size >= MGW_ROW_SINK_SIZE_1_12 &&
                         held->callback_idempotency_at != nullptr;
    for (std::size_t i = 0; i < b.rows.size(); ++i) {
      const auto& c = b.rows[i];
      if (!c.refused.empty()) {
        out_statuses[i] = MGW_INVALID_ARGUMENT;
        continue;
      }
      if (live[i].empty()) {
        out_statuses[i] = MGW_OK;
        continue;
      }
      out_statuses[i] = MGW_CONFLICT;
      if (!deliver) continue;
      give_held_row(live[i][0], c.record.tenant_id, c.record.key, [&](const mgw_idempotency_record& r) {
        held->callback_idempotency_at(held->host_data, i, &r);
      });
    }
    return MGW_OK;
  });
}

mgw_status idempotency_finish_batch(mgw_storage* storage, const mgw_idempotency_record* rows, size_t count,
                                    mgw_status* out_statuses, const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency finish batch", [&] {
    auto& db = database_of(storage);
    if (count == 0) return MGW_OK;
    const PgBatch b = pg_batch(rows, count, out_statuses, true);
    auto statuses = db.write([&](pqxx::work& tx) {
      std::vector<mgw_status> st(b.rows.size(), MGW_INVALID_ARGUMENT);
      for (const std::size_t i : b.order) {
        const auto& f = b.rows[i];
        if (!f.refused.empty()) continue;
        if (f.record.state == MGW_IDEMPOTENCY_DONE) {
          st[i] = pg_complete_one(tx, f);
        } else {
          tx.exec_prepared("idempotency_release", f.record.tenant_id, f.key, f.owner);
          st[i] = MGW_OK;
        }
      }
      return st;
    });
    std::copy(statuses.begin(), statuses.end(), out_statuses);
    return MGW_OK;
  });
}

}  // namespace mgw_pg
