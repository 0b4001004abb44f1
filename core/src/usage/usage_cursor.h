// The opaque cursor of GET /v1/usage: the position after the last record of
// a page (its storage seq), bound by a digest to the tenant and the filter it
// was issued for. Pages are by seq descending, and new records get higher
// seqs, so a cursor never skips or repeats a record while new ones arrive.
// The digest is not a secret: it makes a cursor edited by hand, or reused
// with another filter or tenant, a 400 instead of a silent wrong page (the
// tenant is always the caller's own, so no cursor can read another's data).
#pragma once

#include "plugins/storage.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::usage {

std::string encode_cursor(const plugins::UsageFilter& filter, std::int64_t seq);
// The seq to page from; nullopt when the cursor is malformed or was issued for
// another tenant or filter.
std::optional<std::int64_t> decode_cursor(const plugins::UsageFilter& filter, std::string_view cursor);

}  // namespace modelgw::usage
