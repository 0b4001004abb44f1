#include "args.h"

#include <string>

#include "failure.h"

namespace mgw_sqlite {

std::string_view text_arg(mgw_str s, std::string_view field) {
  if (s.len == 0) return {};
  if (s.ptr == nullptr)
    throw Failure(MGW_INVALID_ARGUMENT,
                  std::string(field) + ": NULL pointer with length " + std::to_string(s.len));
  return {s.ptr, s.len};
}

void check_key_hash(std::string_view hash) {
  constexpr std::size_t kSha256HexLength = 64;
  bool ok = hash.size() == kSha256HexLength && std::all_of(hash.begin(), hash.end(), [](char c) {
              return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
            });
  if (!ok)
    throw Failure(MGW_INVALID_ARGUMENT,
                  "key_hash: must be the lowercase hex SHA-256 of the key (64 characters)");
}

}  // namespace mgw_sqlite
