#include "http/conditional_get.h"

#include "http/field_rules.h"

namespace modelgw::http {

bool if_none_match_hits(std::string_view if_none_match, std::string_view etag) {
  const std::string_view ours = etag.substr(0, 2) == "W/" ? etag.substr(2) : etag;
  while (!if_none_match.empty()) {
    const auto comma = if_none_match.find(',');
    std::string_view tag = trim_ows(if_none_match.substr(0, comma));
    if_none_match = comma == std::string_view::npos ? std::string_view() : if_none_match.substr(comma + 1);
    if (tag.substr(0, 2) == "W/") tag.remove_prefix(2);
    if (tag == "*" || (!tag.empty() && tag == ours)) return true;
  }
  return false;
}

}  // namespace modelgw::http
