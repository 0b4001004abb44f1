#include "usage/usage_cursor.h"

#include "util/page_cursor.h"

namespace modelgw::usage {
namespace {

// The tenant and every filter, one per line. The operation is added only
// when filtered by, so that a cursor issued before it existed stays good.
std::string filter_text(const plugins::UsageFilter& f) {
  std::string text = std::to_string(f.tenant_id) + '\n' + std::to_string(f.from_unix_ms) + '\n' +
                     std::to_string(f.to_unix_ms) + '\n' + f.model + '\n' +
                     (f.feature ? "1" + *f.feature : "0") + '\n' + std::to_string(f.key_id) + '\n' +
                     std::to_string(f.status_min) + '-' + std::to_string(f.status_max) + '\n' +
                     std::to_string(f.stream);
  if (!f.operation.empty()) text += "\noperation=" + f.operation;
  return text;
}

}  // namespace

std::string encode_cursor(const plugins::UsageFilter& filter, std::int64_t seq) {
  return util::encode_page_cursor("v1", filter_text(filter), seq);
}

std::optional<std::int64_t> decode_cursor(const plugins::UsageFilter& filter, std::string_view cursor) {
  return util::decode_page_cursor("v1", filter_text(filter), cursor);
}

}  // namespace modelgw::usage
