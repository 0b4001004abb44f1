// Checks on what the host hands in, before any of it reaches SQL.
#pragma once

#include <modelgw/plugin.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

namespace mgw_pg {

// The bytes of `s`, for a TEXT column. Throws Failure(MGW_INVALID_ARGUMENT)
// naming `field` when the pointer is NULL but the length is not 0, or when the
// bytes hold a NUL: PostgreSQL's text cannot store one, and libpq would cut
// the value there, storing something shorter than was given.
std::string_view text_arg(mgw_str s, std::string_view field);

// `text` as PostgreSQL's text can hold it: every NUL byte and every byte
// sequence that is not UTF-8 becomes U+FFFD. Only for usage records, which
// must never be refused (the host would replay a refused batch forever);
// every other hook refuses such bytes instead (text_arg, and the server's own
// check of the encoding: MGW_INVALID_ARGUMENT).
std::string storable_text(std::string_view text);

// The bytes of `s` as they are, NULs included, for a BYTEA column.
std::string_view bytes_arg(mgw_str s, std::string_view field);

// Throws unless `hash` is 64 lowercase hex digits, the form plugin.h gives for
// key hashes. This keeps a host bug from ever storing a raw key in key_hash.
// The message never contains the rejected bytes.
void check_key_hash(std::string_view hash);

// A copy of a struct that starts with struct_size, as this plugin knows it:
// fields the sender's struct_size does not cover stay zero (ABI growth rule).
template <typename T>
T read_growable(const T& in) noexcept {
  T out{};
  std::memcpy(&out, &in, std::min<std::size_t>(in.struct_size, sizeof(T)));
  out.struct_size = sizeof(T);
  return out;
}

}  // namespace mgw_pg
