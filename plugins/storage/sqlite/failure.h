// SQLite's result codes as mgw statuses. The one exception type used inside
// the plugin is the SDK's Failure (modelgw/storage/guard.hpp); it never
// crosses the C boundary: every hook runs its body through guarded(), which
// turns a Failure into its status and sends its text to the hook's error sink.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/storage/guard.hpp>

#include <string_view>

struct sqlite3;

namespace mgw_sqlite {

using mgw::storage::Failure;

// The mgw status for an SQLite result code (primary or extended):
// BUSY/LOCKED (the busy timeout already ran out) -> UNAVAILABLE, a unique or
// primary-key violation -> CONFLICT, a foreign-key violation -> INVALID_ARGUMENT
// (the caller named a row that does not exist), everything else -> INTERNAL.
mgw_status status_from_sqlite(int rc) noexcept;

// Throws the Failure for `rc`, with SQLite's message for `db` (messages name
// tables and columns, never bound values), prefixed by `context` when not empty.
[[noreturn]] void throw_sqlite(sqlite3* db, int rc, std::string_view context = {});

}  // namespace mgw_sqlite
