// Ledger hooks: leases on what is left of an account's window, and its
// standing. Every take is one write transaction (BEGIN IMMEDIATE: processes
// sharing the file take turns), so
//     spent + sum(granted - settled of live leases) <= limit
// holds whatever the interleaving. A lease is live until it expires; a
// returned one keeps reserving what its holder settled but has not yet
// written (keep - settled), and so nothing once those charges arrive.
#include <modelgw/sdk.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
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

struct Standing {
  std::int64_t spent = 0;
  std::int64_t reserved = 0;
};

Standing standing(Connection& c, std::string_view account, std::int64_t window, std::int64_t now) {
  Standing s;
  {
    auto spent = c.statement("SELECT spent FROM ledger_windows WHERE account = ?1 AND window_start = ?2");
    spent.bind(1, account);
    spent.bind(2, window);
    if (spent.step()) s.spent = spent.int64(0);
  }
  auto reserved = c.statement(
      "SELECT COALESCE(SUM(MAX(granted - settled, 0)), 0) FROM leases "
      "WHERE account = ?1 AND window_start = ?2 AND expires_unix_ms > ?3");
  reserved.bind(1, account);
  reserved.bind(2, window);
  reserved.bind(3, now);
  if (reserved.step()) s.reserved = reserved.int64(0);
  return s;
}

}  // namespace

mgw_status lease_take(mgw_storage* storage, const mgw_lease_request* request, mgw_lease_grant* out,
                      const mgw_text_sink* error) noexcept {
  return guarded(error, "lease take", [&] {
    auto& db = database_of(storage);
    if (request == nullptr || out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "request or grant: NULL");
    const auto r = read_growable(*request);
    const auto account = bytes_arg(r.account, "account");
    const auto holder = bytes_arg(r.holder, "holder");
    if (account.empty()) throw Failure(MGW_INVALID_ARGUMENT, "account: empty");
    if (r.want < 0 || r.at_least < 0 || r.limit < 0)
      throw Failure(MGW_INVALID_ARGUMENT, "want, at_least and limit must not be negative");
    const std::int64_t now = now_ms(db.host());
    mgw_lease_grant grant{};
    grant.struct_size = out->struct_size < sizeof grant ? out->struct_size : sizeof grant;
    db.write([&](Connection& c) {
      const Standing s = standing(c, account, r.window_start_unix_ms, now);
      const std::int64_t free = std::max<std::int64_t>(0, r.limit - s.spent - s.reserved);
      std::int64_t added = std::min(r.want, free);
      if (added < r.at_least || added < 0) added = 0;
      std::int64_t id = 0;
      std::int64_t granted = 0;
      if (r.lease_id != 0) {
        auto find = c.statement(
            "SELECT granted FROM leases WHERE id = ?1 AND account = ?2 AND window_start = ?3 AND returned = "
            "0 "
            "AND expires_unix_ms > ?4");
        find.bind(1, r.lease_id);
        find.bind(2, account);
        find.bind(3, r.window_start_unix_ms);
        find.bind(4, now);
        if (find.step()) {
          id = r.lease_id;
          granted = find.int64(0);
        }
      }
      if (id != 0) {
        auto grow =
            c.statement("UPDATE leases SET granted = granted + ?2, expires_unix_ms = ?3 WHERE id = ?1");
        grow.bind(1, id);
        grow.bind(2, added);
        grow.bind(3, r.expires_unix_ms);
        grow.run();
        granted += added;
      } else if (added > 0) {
        auto insert = c.statement(
            "INSERT INTO leases (account, window_start, granted, settled, expires_unix_ms, returned, holder) "
            "VALUES (?1, ?2, ?3, 0, ?4, 0, ?5) RETURNING id");
        insert.bind(1, account);
        insert.bind(2, r.window_start_unix_ms);
        insert.bind(3, added);
        insert.bind(4, r.expires_unix_ms);
        insert.bind(5, holder);
        if (!insert.step()) throw Failure(MGW_INTERNAL, "insert returned no id");
        id = insert.int64(0);
        granted = added;
      }
      // Lapsed leases of this account, long gone, are forgotten here (cheap:
      // the index covers it) rather than by a sweep.
      auto forget = c.statement("DELETE FROM leases WHERE account = ?1 AND expires_unix_ms < ?2");
      forget.bind(1, account);
      forget.bind(2, now - kForgetAfterMs);
      forget.run();
      grant.lease_id = id;
      grant.added = added;
      grant.granted = granted;
      grant.spent = s.spent;
      grant.reserved = s.reserved + added;
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
    return db.write([&](Connection& c) {
      auto update = c.statement(
          "UPDATE leases SET granted = MAX(settled, MIN(granted, ?2)), returned = 1 WHERE id = ?1");
      update.bind(1, lease_id);
      update.bind(2, std::max<std::int64_t>(0, keep));
      update.run();
      return MGW_OK;
    });
  });
}

mgw_status lease_renew(mgw_storage* storage, const int64_t* lease_ids, size_t count, int64_t expires_unix_ms,
                       const mgw_text_sink* error) noexcept {
  return guarded(error, "lease renew", [&] {
    auto& db = database_of(storage);
    if (count > 0 && lease_ids == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "lease_ids: NULL");
    return db.write([&](Connection& c) {
      const std::int64_t now = now_ms(db.host());
      for (std::size_t i = 0; i < count; ++i) {
        // A lease that already lapsed stays lapsed: the store may have let
        // others take what it held.
        auto renew = c.statement(
            "UPDATE leases SET expires_unix_ms = MAX(expires_unix_ms, ?2) WHERE id = ?1 AND expires_unix_ms "
            "> ?3");
        renew.bind(1, lease_ids[i]);
        renew.bind(2, expires_unix_ms);
        renew.bind(3, now);
        renew.run();
      }
      return MGW_OK;
    });
  });
}

mgw_status ledger_read(mgw_storage* storage, mgw_str account, int64_t window_start_unix_ms,
                       int64_t now_unix_ms, mgw_ledger_state* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "ledger read", [&] {
    auto& db = database_of(storage);
    if (out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "out: NULL");
    const auto name = bytes_arg(account, "account");
    return db.read([&](Connection& c) {
      const Standing s = standing(c, name, window_start_unix_ms, now_unix_ms);
      mgw_ledger_state state{};
      state.struct_size = out->struct_size < sizeof state ? out->struct_size : sizeof state;
      state.spent = s.spent;
      state.reserved = s.reserved;
      std::memcpy(out, &state, state.struct_size);
      return MGW_OK;
    });
  });
}

}  // namespace mgw_sqlite
