// Reading result fields into the ABI's types. Strings are borrowed from the
// pqxx::result, which the caller keeps alive while the host reads the row.
#pragma once

#include <modelgw/plugin.h>

#include <pqxx/pqxx>

#include <cstdint>

namespace mgw_pg {

inline mgw_str str_of(const pqxx::field& f) noexcept {
  return mgw_str{f.c_str(), f.size()};
}

inline std::int64_t int64_of(const pqxx::field& f) {
  return f.as<std::int64_t>();
}

}  // namespace mgw_pg
