// Idempotency-key hooks (ABI 1.3). The primary key (tenant_id, key) decides a
// claim: one INSERT ... ON CONFLICT DO UPDATE ... WHERE the row expired, so of
// two requests that send the same key at once, in any processes, exactly one
// gets MGW_OK and makes the call; the other waits for its insert to commit
// and sees its PENDING row. Complete and release touch only the row the
// caller claimed (same owner), so a holder whose claim lapsed and was taken
// over cannot overwrite or free the new holder's key.
#include <modelgw/sdk.hpp>

#include <pqxx/pqxx>

#include <cstdint>
#include <string>

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

// The live row (digest, owner, state, response, created, expires) to the sink.
void emit_row(const pqxx::row& row, std::int64_t tenant_id, mgw_str key, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_idempotency) + sizeof(out->callback_idempotency) ||
      out->callback_idempotency == nullptr) {
    return;
  }
  const pqxx::binarystring response(row[3]);  // BYTEA, decoded
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
    const std::string digest(text_arg(c.digest, "digest"));
    const std::string owner(text_arg(c.owner, "owner"));
    if (owner.empty()) throw Failure(MGW_INVALID_ARGUMENT, "owner: empty");
    // Empty when claimed; otherwise the live row that holds the key.
    auto live = db.write([&](pqxx::work& tx) {
      if (!tx.exec_prepared("idempotency_claim", c.tenant_id, key, digest, owner, c.created_unix_ms,
                            c.expires_unix_ms, now_unix_ms)
               .empty())
        return pqxx::result();
      // The conflicting row is locked by the claim's ON CONFLICT, even though
      // its WHERE refused it, so it is still there, unchanged, for this read.
      auto row = tx.exec_prepared("idempotency_get", c.tenant_id, key);
      if (row.empty()) throw Failure(MGW_INTERNAL, "the key's row vanished while locked");
      return row;
    });
    if (live.empty()) return MGW_OK;
    emit_row(live[0], c.tenant_id, c.key, out);
    return MGW_CONFLICT;
  });
}

mgw_status idempotency_complete(mgw_storage* storage, const mgw_idempotency_record* done,
                                const mgw_text_sink* error) noexcept {
  return guarded(error, "idempotency complete", [&] {
    auto& db = database_of(storage);
    if (done == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    const auto d = read_growable(*done);
    const auto key = key_arg(d.key);
    const std::string owner(text_arg(d.owner, "owner"));
    const auto bytes = bytes_arg(d.response, "response");
    return db.write([&](pqxx::work& tx) {
      // Non-empty bytes go in binary format (opaque, NUL bytes included); an
      // empty text parameter is an empty BYTEA.
      auto updated =
          bytes.empty() ? tx.exec_prepared("idempotency_complete", d.tenant_id, key, owner, std::string(),
                                           d.expires_unix_ms)
                        : tx.exec_prepared("idempotency_complete", d.tenant_id, key, owner,
                                           pqxx::binarystring(bytes.data(), bytes.size()), d.expires_unix_ms);
      return updated.affected_rows() == 0 ? MGW_NOT_FOUND : MGW_OK;
    });
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

}  // namespace mgw_pg
