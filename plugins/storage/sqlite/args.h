// Checks on what the host hands in, before any of it reaches SQL: the SDK's
// (modelgw/storage/args.hpp). SQLite's TEXT keeps every byte given with its
// length, so hooks read strings with bytes_arg; the stored-response checks
// refuse NUL bytes, as every plugin's do.
#pragma once

#include <modelgw/storage/args.hpp>

namespace mgw_sqlite {

using mgw::storage::bytes_arg;
using mgw::storage::check_key_hash;
using mgw::storage::read_growable;

}  // namespace mgw_sqlite
