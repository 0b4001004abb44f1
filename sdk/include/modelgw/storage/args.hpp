// Reading what the host hands a storage hook, before any of it reaches a
// database: borrowed strings, key hashes, growable structs, and the checks
// ABI 1.9 asks of every stored-response hook. Each check throws
// mgw::storage::Failure(MGW_INVALID_ARGUMENT) naming the field, never quoting
// the rejected bytes, so a hook running under guarded() refuses the call.
// Header-only C++17; needs only the SDK's plugin.h and the C++ standard
// library.
//
// OWNERSHIP: a std::string_view returned here borrows the host's mgw_str and
// is valid only during the hook call it came with; copy what you keep.
// THREADING: no state; safe on any thread.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/storage/guard.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mgw::storage {

// The bytes of `s` as they are, NULs included (a BLOB/BYTEA column, or a
// database whose text holds any byte). Throws when the pointer is NULL but the
// length is not 0.
inline std::string_view bytes_arg(mgw_str s, std::string_view field) {
  if (s.len == 0) return {};
  if (s.ptr == nullptr)
    throw Failure(MGW_INVALID_ARGUMENT,
                  std::string(field) + ": NULL pointer with length " + std::to_string(s.len));
  return {s.ptr, s.len};
}

// The bytes of `s`, for a text column that cannot hold a NUL byte (a C
// string API would cut the value there, storing something shorter than was
// given). Throws as bytes_arg does, or when the bytes hold a NUL.
inline std::string_view text_arg(mgw_str s, std::string_view field) {
  const auto bytes = bytes_arg(s, field);
  if (bytes.find('\0') != std::string_view::npos)
    throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": must not contain NUL bytes");
  return bytes;
}

// Throws unless `hash` is 64 lowercase hex digits, the form plugin.h gives for
// key hashes. This keeps a host bug from ever storing a raw key in key_hash.
inline void check_key_hash(std::string_view hash) {
  constexpr std::size_t kSha256HexLength = 64;
  const bool ok = hash.size() == kSha256HexLength && std::all_of(hash.begin(), hash.end(), [](char c) {
                    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                  });
  if (!ok)
    throw Failure(MGW_INVALID_ARGUMENT,
                  "key_hash: must be the lowercase hex SHA-256 of the key (64 characters)");
}

// A copy of a struct that starts with struct_size, as this plugin knows it:
// fields the sender's struct_size does not cover stay zero (ABI growth rule).
template <typename T>
T read_growable(const T& in) noexcept {
  T out{};
  std::memcpy(&out, &in, std::min<std::size_t>(in.struct_size, sizeof(T)));
  out.struct_size = sizeof(T);
  return out;
}

// The records of a batch hook (on_usage_insert) as the host laid them out:
// the array's stride is the host's sizeof(T), which records[0].struct_size
// gives, and which is larger than ours when the host was built against a
// newer minor version. Refuses a NULL array, a stride below `min_size` (the
// least a host may send) or not a multiple of alignof(T), and a record whose
// struct_size differs from the first's; otherwise returns check(record) for
// each record, in order (check reads it with read_growable and throws for a
// bad field). The records borrow the host's array, for the call.
template <typename T, typename Check>
auto records_arg(const T* records, std::size_t count, std::size_t min_size, Check&& check)
    -> std::vector<std::decay_t<decltype(check(*records))>> {
  if (records == nullptr)
    throw Failure(MGW_INVALID_ARGUMENT, "records: NULL with count " + std::to_string(count));
  const std::size_t stride = records[0].struct_size;
  if (stride < min_size || stride % alignof(T) != 0)
    throw Failure(MGW_INVALID_ARGUMENT,
                  "records: struct_size " + std::to_string(stride) + " is not a valid size");
  const auto* bytes = reinterpret_cast<const unsigned char*>(records);
  std::vector<std::decay_t<decltype(check(*records))>> rows;
  rows.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto* record = reinterpret_cast<const T*>(bytes + i * stride);
    if (record->struct_size != stride)
      throw Failure(MGW_INVALID_ARGUMENT,
                    "records[" + std::to_string(i) + "]: struct_size differs from records[0]");
    rows.push_back(check(*record));
  }
  return rows;
}

// --- stored responses (ABI 1.9: the limits plugin.h sets on their hooks) ----

inline constexpr std::size_t kMaxResponseIdBytes = 128;
// Generous for a conversation turn; bounds what one row can make the host and
// the database hold.
inline constexpr std::size_t kMaxResponseJsonBytes = std::size_t{16} << 20;
inline constexpr std::int64_t kMaxResponsePage = 1000;

// An id of 1..128 bytes (text_arg); `may_be_empty` for previous_id and a
// page's cursor.
inline std::string_view response_id_arg(mgw_str id, std::string_view field, bool may_be_empty) {
  const auto v = text_arg(id, field);
  if ((v.empty() && !may_be_empty) || v.size() > kMaxResponseIdBytes)
    throw Failure(MGW_INVALID_ARGUMENT,
                  std::string(field) + ": must be " + (may_be_empty ? "0" : "1") + " to 128 bytes");
  return v;
}

// A JSON text of 1 byte to 16 MiB (text_arg; not parsed).
inline std::string_view response_json_arg(mgw_str json, std::string_view field) {
  const auto v = text_arg(json, field);
  if (v.empty()) throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": empty (must be JSON)");
  if (v.size() > kMaxResponseJsonBytes)
    throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": over 16 MiB");
  return v;
}

inline void response_tenant_arg(std::int64_t tenant_id, std::string_view field) {
  if (tenant_id < 0) throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": must not be negative");
}

inline void response_limit_arg(std::int64_t limit) {
  if (limit < 1 || limit > kMaxResponsePage) throw Failure(MGW_INVALID_ARGUMENT, "limit: must be 1 to 1000");
}

// A copy of `record` as this plugin knows it (read_growable), refused when
// NULL or smaller than its ABI 1.9 size. Its strings still borrow the host's.
inline mgw_response_record response_record_arg(const mgw_response_record* record) {
  if (record == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
  if (record->struct_size < MGW_RESPONSE_RECORD_SIZE_1_9)
    throw Failure(MGW_INVALID_ARGUMENT, "record: struct_size " + std::to_string(record->struct_size) +
                                            " is below the ABI 1.9 size");
  return read_growable(*record);
}

// What on_response_put stores, every field checked in this order: the
// record (response_record_arg), tenant_id, id, previous_id (may be empty),
// input_json, response_json. The strings borrow the host's record.
struct ResponseToStore {
  std::int64_t tenant_id;
  std::string_view id;
  std::string_view previous_id;
  std::int64_t created_unix_ms;
  std::int64_t expires_unix_ms;
  std::string_view input_json;
  std::string_view response_json;
};

inline ResponseToStore response_put_arg(const mgw_response_record* record) {
  const mgw_response_record r = response_record_arg(record);
  response_tenant_arg(r.tenant_id, "tenant_id");
  // A braced list is evaluated left to right, so the first bad field is named.
  return ResponseToStore{r.tenant_id,
                         response_id_arg(r.id, "id", false),
                         response_id_arg(r.previous_id, "previous_id", true),
                         r.created_unix_ms,
                         r.expires_unix_ms,
                         response_json_arg(r.input_json, "input_json"),
                         response_json_arg(r.response_json, "response_json")};
}

// The sink rows go to; a sink that cannot take them is the host's mistake,
// refused before any work (a row found and dropped would read as "none").
inline const mgw_row_sink& response_sink_arg(const mgw_row_sink* out) {
  if (out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "out: NULL");
  if (out->struct_size < MGW_ROW_SINK_SIZE_1_9 || out->callback_response == nullptr)
    throw Failure(MGW_INVALID_ARGUMENT, "out: the row sink has no callback_response (ABI 1.9)");
  return *out;
}

}  // namespace mgw::storage
