// The one exception type used inside the plugin. It never crosses the C
// boundary: every hook runs its body through guarded() (guard.h), which turns a
// Failure into its status and sends its text to the hook's error sink.
#pragma once

#include <modelgw/plugin.h>

#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;

namespace mgw_sqlite {

class Failure : public std::runtime_error {
 public:
  Failure(mgw_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  mgw_status status() const noexcept { return status_; }

 private:
  mgw_status status_;
};

// The mgw status for an SQLite result code (primary or extended):
// BUSY/LOCKED (the busy timeout already ran out) -> UNAVAILABLE, a unique or
// primary-key violation -> CONFLICT, a foreign-key violation -> INVALID_ARGUMENT
// (the caller named a row that does not exist), everything else -> INTERNAL.
mgw_status status_from_sqlite(int rc) noexcept;

// Throws the Failure for `rc`, with SQLite's message for `db` (messages name
// tables and columns, never bound values), prefixed by `context` when not empty.
[[noreturn]] void throw_sqlite(sqlite3* db, int rc, std::string_view context = {});

}  // namespace mgw_sqlite
