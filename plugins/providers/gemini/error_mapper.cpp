#include "error_mapper.h"

#include "vendor_error.h"

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/retry_after.hpp>
#include <modelgw/provider/secret_mask.hpp>

#include <array>
#include <optional>
#include <utility>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

// Gemini's row over the SDK's defaults: its 504 DEADLINE_EXCEEDED is a
// timeout, like a 408.
constexpr std::array<StatusRow, 1> kGeminiRows = {{
    {504, 504, {504, kProviderTimeout, true}},
}};
constexpr StatusTable kStatusTable(kGeminiRows);

// What the body tells us, parsed at most once.
struct BodyView {
  explicit BodyView(bool is_blank) : blank(is_blank) {}
  Json doc;
  std::optional<VendorError> vendor;  // views into doc
  bool blank;
};

BodyView inspect(std::string_view body) {
  BodyView v(is_blank(body));
  if (v.blank) {
    return v;
  }
  v.doc = parse_bounded(body);
  if (!v.doc.is_discarded()) {
    v.vendor = read_vendor_error(v.doc);
  }
  return v;
}

bool has_message(const BodyView& b) {
  return b.vendor && !b.vendor->message.empty();
}

// ": <vendor message>" when there is one, else what the body looked like.
std::string vendor_suffix(const ErrorContext& ctx, const BodyView& b, const mgw_header* headers,
                          std::size_t count) {
  if (has_message(b)) {
    return ": " + vendor_text(b.vendor->message, ctx.api_key);
  }
  return body_shape(b.blank, b.doc.is_discarded(), headers, count);
}

bool is_credentials_error(const VendorError& v) {
  return v.status == "UNAUTHENTICATED" || v.status == "PERMISSION_DENIED" || is_api_key_error(v);
}

bool is_context_length(const VendorError& v) {
  // Gemini says it only in words: "The input token count (1200293) exceeds
  // the maximum number of tokens allowed (1048576)."; Vertex: "… the input
  // token count is 1200000 but model only supports up to 1048576".
  return icontains(v.message, "exceeds the maximum number of tokens") ||
         icontains(v.message, "input token count");
}

MappedError map_rejected(const ErrorContext& ctx, int32_t status, const ErrorClass& row, const BodyView& b,
                         const mgw_header* headers, std::size_t count) {
  MappedError e = mapped(row, {});
  if (b.vendor && is_context_length(*b.vendor)) {
    e.http_status = 422;
    e.code = kContextLengthExceeded;
    e.message = vendor_text(b.vendor->message, ctx.api_key);
    e.param = "messages";
    return e;
  }
  // Gemini's field names (generation_config.temperature, contents[2].parts)
  // are not the client's, so no param is guessed from them.
  if (has_message(b)) {
    e.message = std::string(kRejectedPrefix) + vendor_text(b.vendor->message, ctx.api_key);
  } else {
    e.message = "upstream rejected the request (HTTP " + std::to_string(status) +
                body_shape(b.blank, b.doc.is_discarded(), headers, count) + ")";
  }
  return e;
}

}  // namespace

MappedError map_http_error(const ErrorContext& ctx, int32_t status, const mgw_header* headers,
                           std::size_t count, std::string_view body) {
  const ErrorClass row = kStatusTable.classify(status);
  // Rows that never look at the body come first: no parse, nothing to leak.
  if (status == 401 || status == 403) {
    return mapped(row, std::string(kCredentialsMessage));
  }
  if (status == 404) {
    return mapped(row, unknown_model_message(ctx.upstream_model));
  }

  const BodyView b = inspect(body);
  // A bad key comes back as 400 INVALID_ARGUMENT "API key not valid": not the
  // client's fault, and not to be retried.
  if (b.vendor && is_credentials_error(*b.vendor)) {
    return provider_failed(std::string(kCredentialsMessage), false);
  }
  // The header first (a proxy in between may set its own), then Gemini's hint.
  int64_t retry_ms = retry_after_ms(headers, count, ctx.now_unix_ms);
  if (retry_ms < 0 && b.vendor) {
    retry_ms = retry_delay_ms(*b.vendor).value_or(-1);
  }

  if (status == 400 || status == 422) {
    return map_rejected(ctx, status, row, b, headers, count);
  }
  if (status == 429) {
    return mapped(row, rate_limited_message(retry_ms), retry_ms);
  }
  if (status == 408 || status == 504) {
    return mapped(row,
                  "the upstream provider timed out (HTTP " + std::to_string(status) + ")" +
                      vendor_suffix(ctx, b, headers, count),
                  retry_ms);
  }
  return mapped(
      row,
      "upstream provider returned HTTP " + std::to_string(status) + vendor_suffix(ctx, b, headers, count),
      retry_ms);
}

std::string with_vendor_message(std::string prefix, const Json& doc, std::string_view api_key) {
  if (auto v = read_vendor_error(doc); v && !v->message.empty()) {
    prefix += ": ";
    prefix += vendor_text(v->message, api_key);
  }
  return prefix;
}

}  // namespace mgw::gemini
