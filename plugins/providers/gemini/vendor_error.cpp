#include "vendor_error.h"

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/retry_after.hpp>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

// A google.protobuf.Duration in its JSON form ("37s", "0.339s", "1.5s"),
// rounded up to whole milliseconds (waiting too little fails again).
std::optional<int64_t> parse_duration_ms(std::string_view text) noexcept {
  if (text.size() < 2 || text.back() != 's') {
    return std::nullopt;
  }
  return parse_delay(text.substr(0, text.size() - 1), 1000);
}

// Detail objects of one "@type" (the part after the last '/', e.g.
// "google.rpc.RetryInfo"), calling `fn` with each until it returns true.
template <typename Fn>
bool any_detail(const VendorError& e, std::string_view type, Fn&& fn) {
  if (e.details == nullptr || !e.details->is_array()) {
    return false;
  }
  for (const Json& d : *e.details) {
    const std::string_view at = string_member(d, "@type");
    const auto slash = at.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? at : at.substr(slash + 1);
    if (name == type && fn(d)) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<VendorError> read_vendor_error(const Json& doc) {
  const Json* holder = &doc;
  if (doc.is_array()) {
    if (doc.empty()) {
      return std::nullopt;
    }
    holder = &doc.front();
  }
  const Json* err = member(*holder, "error");
  if (err == nullptr) {
    return std::nullopt;
  }
  if (err->is_string()) {
    return VendorError{err->get_ref<const std::string&>(), {}, nullptr};
  }
  if (!err->is_object()) {
    return std::nullopt;
  }
  return VendorError{string_member(*err, "message"), string_member(*err, "status"), member(*err, "details")};
}

bool is_api_key_error(const VendorError& e) {
  const bool by_reason = any_detail(e, "google.rpc.ErrorInfo", [](const Json& d) {
    return string_member(d, "reason").substr(0, 8) == "API_KEY_";
  });
  return by_reason || icontains(e.message, "API key not valid") ||
         icontains(e.message, "API key not found") || icontains(e.message, "API key expired");
}

std::optional<int64_t> retry_delay_ms(const VendorError& e) {
  std::optional<int64_t> out;
  any_detail(e, "google.rpc.RetryInfo", [&](const Json& d) {
    out = parse_duration_ms(string_member(d, "retryDelay"));
    return out.has_value();
  });
  return out;
}

}  // namespace mgw::gemini
