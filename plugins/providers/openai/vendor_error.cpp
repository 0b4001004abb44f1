#include "vendor_error.h"

namespace mgw::openai {

using provider::Json;
using provider::string_member;

namespace {

VendorError fields_of(const Json& obj) {
  return VendorError{string_member(obj, "message"), string_member(obj, "type"), string_member(obj, "code"),
                     string_member(obj, "param")};
}

}  // namespace

std::optional<VendorError> read_vendor_error(const Json& doc) {
  if (!doc.is_object()) {
    return std::nullopt;
  }
  if (auto err = doc.find("error"); err != doc.end()) {
    if (err->is_object()) {
      return fields_of(*err);
    }
    if (err->is_string()) {
      return VendorError{err->get_ref<const std::string&>(), {}, {}, {}};
    }
  }
  if (!string_member(doc, "message").empty()) {
    return fields_of(doc);
  }
  if (auto detail = string_member(doc, "detail"); !detail.empty()) {
    return VendorError{detail, {}, {}, {}};
  }
  return std::nullopt;
}

}  // namespace mgw::openai
