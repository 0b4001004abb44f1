// PostgreSQL's SQLSTATEs as mgw statuses, and its error texts. The one
// exception type used inside the plugin is the SDK's Failure
// (modelgw/storage/guard.hpp); it never crosses the C boundary: every hook
// runs its body through guarded(), which turns a Failure into its status and
// sends its text to the hook's error sink.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/storage/guard.hpp>

#include <string>
#include <string_view>

namespace mgw_pg {

using mgw::storage::Failure;

// The mgw status for a PostgreSQL SQLSTATE: a unique violation -> CONFLICT, a
// foreign-key violation or a value the server refused (class 22) ->
// INVALID_ARGUMENT (the caller named a row that does not exist, or sent bytes
// PostgreSQL cannot store), a timeout, a lock wait, a lost connection or an
// overloaded server -> UNAVAILABLE, everything else -> INTERNAL.
mgw_status status_from_sqlstate(std::string_view sqlstate) noexcept;

// True for SQLSTATEs after which the connection cannot be used again: class
// 08 (connection exception) and the server shutting down (57P01..57P03).
bool connection_lost(std::string_view sqlstate) noexcept;

// The server's primary message from a libpq/libpqxx error text: the first
// line, without the "ERROR:  " severity in front and without DETAIL/HINT lines
// (those may quote stored values, e.g. the key of a unique violation).
std::string primary_message(std::string_view what);

// `text` on one line: newlines and tabs (libpq indents its hints) become
// single spaces, trailing blanks go.
std::string one_line(std::string_view text);

}  // namespace mgw_pg
