#include "json_util.h"

namespace mgw::anthropic {

Json parse_vendor_json(std::string_view text) {
  // Each level costs at least one byte, so a short text cannot be too deep:
  // typical stream events skip the depth callback entirely.
  if (text.size() <= kMaxVendorDepth) {
    return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  }
  bool too_deep = false;
  Json doc = Json::parse(
      text.begin(), text.end(),
      [&too_deep](int depth, Json::parse_event_t, Json&) {
        too_deep = too_deep || static_cast<std::size_t>(depth) > kMaxVendorDepth;
        return true;
      },
      /*allow_exceptions=*/false);
  return too_deep ? Json(Json::value_t::discarded) : doc;
}

Json parse_client_json(std::string_view text) {
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string_view string_member(const Json& j, std::string_view key) {
  const Json* m = member(j, key);
  return m != nullptr && m->is_string() ? std::string_view(m->get_ref<const std::string&>())
                                        : std::string_view{};
}

const Json* member(const Json& j, std::string_view key) {
  if (!j.is_object()) {
    return nullptr;
  }
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

}  // namespace mgw::anthropic
