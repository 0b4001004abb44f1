// Ledger hooks: leases on what is left of an account's window, and its
// standing. Every take is one transaction that first locks the window's row
// in ledger_windows (created when missing), so takes on one window run one
// after the other, across every process, and
//     spent + sum(granted - settled of live leases) <= limit
// holds whatever the interleaving. Settling charges (usage.cpp) locks the
// same row, in the same order (window, then lease), so the two never
// deadlock. A lease is live until it expires; a returned one keeps reserving
// what its holder settled but has not yet written (keep - settled), and so
// nothing once those charges arrive.
//
// Why the sums are read in a statement of their own, after the lock: under
// READ COMMITTED each statement sees what was committed when it started, so a
// statement that starts once the lock is held sees every lease the previous
// holder committed.
#include <modelgw/sdk.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

// Leases that lapsed this long ago are deleted; their window's spent stays.
constexpr std::int64_t kForgetAfterMs = 24LL * 3'600'000;

// The host's clock (tests inject one), else the system's.
std::int64_t now_ms(const mgw_host_api* host) {
  if (host != nullptr && host->callback_now_unix_ms != nullptr)
    return host->callback_now_unix_ms(host->host_data);
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// "{1,2,3}": an array literal for a BIGINT[] parameter.
std::string bigint_array(const int64_t* ids, std::size_t count) {
  std::string out = "{";
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) out.push_back(',');
    out += std::to_string(ids[i]);
  }
  out.push_back('}');
  return out;
}

}  // namespace

mgw_status lease_take(mgw_storage* storage, const mgw_lease_request* request, mgw_lease_grant* out,
                      const mgw_text_sink* error) noexcept {
  return guarded(error, "lease take", [&] {
    auto& db = database_of(storage);
    if (request == nullptr || out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "request or grant: NULL");
    const auto r = read_growable(*request);
    const std::string account(text_arg(r.account, "account"));
    const std::string holder(text_arg(r.holder, "holder"));
    if (account.empty()) throw Failure(MGW_INVALID_ARGUMENT, "account: empty");
    if (r.want < 0 || r.at_least < 0 || r.limit < 0)
      throw Failure(MGW_INVALID_ARGUMENT, "want, at_least and limit must not be negative");
    const std::int64_t now = now_ms(db.host());
    const std::int64_t window = r.window_start_unix_ms;
    mgw_lease_grant grant{};
    grant.struct_size = out->struct_size < sizeof grant ? out->struct_size : sizeof grant;
    db.write([&](pqxx::work& tx) {
      tx.exec_prepared("ledger_window_ensure", account, window);
      const std::int64_t spent = int64_of(tx.exec_prepared1("ledger_window_lock", account, window)[0]);
      const std::int64_t reserved = int64_of(tx.exec_prepared1("lease_reserved", account, window, now)[0]);
      const std::int64_t free = std::max<std::int64_t>(0, r.limit - spent - reserved);
      std::int64_t added = std::min(r.want, free);
      if (added < r.at_least || added < 0) added = 0;
      std::int64_t id = 0;
      std::int64_t granted = 0;
      if (r.lease_id != 0) {
        // Locked too, so a return of this lease waits for the growth, or
        // the growth sees the lease returned and starts a new one.
        auto live = tx.exec_prepared("lease_find_live", r.lease_id, account, window, now);
        if (!live.empty()) {
          id = r.lease_id;
          granted = int64_of(live[0][0]);
        }
      }
      if (id != 0) {
        tx.exec_prepared("lease_grow", id, added, r.expires_unix_ms);
        granted += added;
      } else if (added > 0) {
        id =
            int64_of(tx.exec_prepared1("lease_insert", account, window, added, r.expires_unix_ms, holder)[0]);
        granted = added;
      }
      // Lapsed leases of this account, long gone, are forgotten here (cheap:
      // the index covers it) rather than by a sweep.
      tx.exec_prepared("lease_forget", account, now - kForgetAfterMs);
      grant.lease_id = id;
      grant.added = added;
      grant.granted = granted;
      grant.spent = spent;
      grant.reserved = reserved + added;
      return MGW_OK;
    });
    std::memcpy(out, &grant, grant.struct_size);
    return MGW_OK;
  });
}

mgw_status lease_return(mgw_storage* storage, int64_t lease_id, int64_t keep,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "lease return", [&] {
    auto& db = database_of(storage);
    // Only ever frees: no window lock needed, the invariant holds either way.
    return db.write([&](pqxx::work& tx) {
      tx.exec_prepared("lease_return", lease_id, std::max<std::int64_t>(0, keep));
      return MGW_OK;
    });
  });
}

mgw_status lease_renew(mgw_storage* storage, const int64_t* lease_ids, size_t count, int64_t expires_unix_ms,
                       const mgw_text_sink* error) noexcept {
  return guarded(error, "lease renew", [&] {
    auto& db = database_of(storage);
    if (count > 0 && lease_ids == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "lease_ids: NULL");
    if (count == 0) return MGW_OK;
    const std::string ids = bigint_array(lease_ids, count);
    return db.write([&](pqxx::work& tx) {
      // A lease that already lapsed stays lapsed: the store may have let
      // others take what it held.
      tx.exec_prepared("lease_renew", ids, expires_unix_ms, now_ms(db.host()));
      return MGW_OK;
    });
  });
}

mgw_status ledger_read(mgw_storage* storage, mgw_str account, int64_t window_start_unix_ms,
                       int64_t now_unix_ms, mgw_ledger_state* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "ledger read", [&] {
    auto& db = database_of(storage);
    if (out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "out: NULL");
    const std::string name(text_arg(account, "account"));
    // One statement: spent and reserved from the same snapshot.
    auto row = db.read([&](pqxx::transaction_base& tx) {
      return tx.exec_prepared1("ledger_read", name, window_start_unix_ms, now_unix_ms);
    });
    mgw_ledger_state state{};
    state.struct_size = out->struct_size < sizeof state ? out->struct_size : sizeof state;
    state.spent = int64_of(row[0]);
    state.reserved = int64_of(row[1]);
    std::memcpy(out, &state, state.struct_size);
    return MGW_OK;
  });
}

}  // namespace mgw_pg
