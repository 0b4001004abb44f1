#include "util/page_cursor.h"

#include "util/base64url.h"
#include "util/sha256_hex.h"

#include <charconv>

namespace modelgw::util {
namespace {

// 16 hex digits of SHA-256 over the filter and the seq.
std::string digest(const std::string& filter, std::int64_t seq) {
  return sha256_hex(filter + '\n' + std::to_string(seq)).substr(0, 16);
}

}  // namespace

std::string encode_page_cursor(std::string_view version, const std::string& filter, std::int64_t seq) {
  return util::base64url_encode(std::string(version) + "." + std::to_string(seq) + "." + digest(filter, seq));
}

std::optional<std::int64_t> decode_page_cursor(std::string_view version, const std::string& filter,
                                               std::string_view cursor) {
  if (cursor.empty() || cursor.size() > 128) return std::nullopt;
  const auto text = util::base64url_decode(cursor);
  if (!text || text->size() <= version.size() || text->compare(0, version.size(), version) != 0 ||
      (*text)[version.size()] != '.') {
    return std::nullopt;
  }
  const std::string_view rest = std::string_view(*text).substr(version.size() + 1);
  const auto dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 19) return std::nullopt;
  std::int64_t seq = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + dot, seq);
  if (ec != std::errc() || end != rest.data() + dot || seq <= 0) return std::nullopt;
  if (rest.substr(dot + 1) != digest(filter, seq)) return std::nullopt;
  return seq;
}

}  // namespace modelgw::util
