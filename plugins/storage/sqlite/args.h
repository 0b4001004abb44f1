// Checks on what the host hands in, before any of it reaches SQL.
#pragma once

#include <modelgw/plugin.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace mgw_sqlite {

// The bytes of `s`. Throws Failure(MGW_INVALID_ARGUMENT) naming `field` when
// the pointer is NULL but the length is not 0.
std::string_view text_arg(mgw_str s, std::string_view field);

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

}  // namespace mgw_sqlite
