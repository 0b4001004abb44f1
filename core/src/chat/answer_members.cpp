#include "chat/answer_members.h"

#include "chat/body_members.h"
#include "util/json_dom.h"

#include <modelgw/provider/json_scan.hpp>
#include <modelgw/sdk.hpp>

namespace modelgw::chat {

std::optional<std::vector<mgw_json_member>> index_checked_object(std::string_view text, bool& object) {
  std::vector<mgw_json_member> members;
  bool plain_names = true;
  object =
      mgw::provider::json_scan::for_each_member(text, [&](std::string_view name, std::string_view value) {
        plain_names = plain_names && name.find('\\') == std::string_view::npos;
        members.push_back(mgw_json_member{mgw::str(name), mgw::str(value)});
        return true;
      });
  if (!object) {
    // Refused by the scan: a parser decides (it takes deeper nesting).
    object = opens_object(text) && util::is_json(text);
    return std::nullopt;
  }
  if (!plain_names || !distinct_names(members)) return std::nullopt;
  return members;
}

}  // namespace modelgw::chat
