// The opaque cursor of a paged list (GET /v1/usage, GET /v1/audit): the seq
// to continue from, bound by a digest to the tenant and the filters it was
// issued for, so a cursor edited by hand or reused with other filters is a
// 400 rather than a silent wrong page. The digest is not a secret: the tenant
// is always the caller's own, so no cursor can read another's data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::util {

// `version` names the list ("v1" usage, "a1" audit); `filter` is the text of
// the tenant and every filter, one per line.
std::string encode_page_cursor(std::string_view version, const std::string& filter, std::int64_t seq);
// The seq, or nullopt for a cursor that is malformed or not issued for `filter`.
std::optional<std::int64_t> decode_page_cursor(std::string_view version, const std::string& filter,
                                               std::string_view cursor);

}  // namespace modelgw::util
