// Checks on what the host hands in, before any of it reaches SQL: the SDK's
// (modelgw/storage/args.hpp), and what only PostgreSQL's text needs.
// PostgreSQL's text cannot store a NUL byte (libpq would cut the value
// there), so hooks read strings with text_arg, which refuses one; bytes_arg
// is for BYTEA columns.
#pragma once

#include <modelgw/storage/args.hpp>

#include <string>
#include <string_view>

namespace mgw_pg {

using mgw::storage::bytes_arg;
using mgw::storage::check_key_hash;
using mgw::storage::read_growable;
using mgw::storage::text_arg;

// `text` as PostgreSQL's text can hold it: every NUL byte and every byte
// sequence that is not UTF-8 becomes U+FFFD. Only for usage records, which
// must never be refused (the host would replay a refused batch forever);
// every other hook refuses such bytes instead (text_arg, and the server's own
// check of the encoding: MGW_INVALID_ARGUMENT).
std::string storable_text(std::string_view text);

}  // namespace mgw_pg
