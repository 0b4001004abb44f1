#include "vendor_error.h"

#include <array>

namespace mgw::anthropic {

using namespace mgw::provider;

std::optional<VendorError> read_vendor_error(const Json& doc) {
  if (!doc.is_object()) {
    return std::nullopt;
  }
  if (const Json* error = member(doc, "error")) {
    if (error->is_string()) {
      return VendorError{{}, error->get_ref<const std::string&>()};
    }
    if (error->is_object()) {
      return VendorError{string_member(*error, "type"), string_member(*error, "message")};
    }
  }
  if (auto message = string_member(doc, "message"); !message.empty()) {
    return VendorError{{}, message};
  }
  return std::nullopt;
}

bool is_transient(std::string_view error_type) noexcept {
  static constexpr std::array<std::string_view, 6> kPermanent = {
      "invalid_request_error", "authentication_error", "permission_error",
      "not_found_error",       "request_too_large",    "billing_error"};
  for (auto t : kPermanent) {
    if (error_type == t) {
      return false;
    }
  }
  return true;
}

}  // namespace mgw::anthropic
