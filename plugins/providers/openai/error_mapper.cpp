#include "error_mapper.h"

#include "vendor_error.h"

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/retry_after.hpp>
#include <modelgw/provider/secret_mask.hpp>

#include <optional>
#include <utility>

namespace mgw::openai {

using namespace mgw::provider;

namespace {

// The SDK's default rows serve OpenAI as they are.
constexpr StatusTable kStatusTable;

constexpr std::string_view kQuotaMessage = "the upstream provider's account is out of quota";
constexpr std::size_t kParamLimit = 128;

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

std::string body_shape(const BodyView& b, const mgw_header* headers, std::size_t count) {
  return provider::body_shape(b.blank, b.doc.is_discarded(), headers, count);
}

bool is_context_length(const VendorError& v) {
  if (v.code == kContextLengthExceeded || v.type == kContextLengthExceeded) {
    return true;
  }
  // Compatible servers (vLLM, llama.cpp, …) often say it only in words.
  const std::string_view m = v.message;
  return icontains(m, "maximum context length") ||
         ((icontains(m, "context length") || icontains(m, "context window")) && icontains(m, "exceed"));
}

bool is_unsupported_parameter(const VendorError& v) {
  // OpenAI's codes for e.g. temperature on reasoning models (spec §2.1).
  return v.code == "unsupported_parameter" || v.code == "unsupported_value";
}

MappedError map_rejected(const ErrorContext& ctx, int32_t status, const ErrorClass& row, const BodyView& b,
                         const mgw_header* headers, std::size_t count) {
  MappedError e = mapped(row, {});
  if (b.vendor) {
    e.param = vendor_text(b.vendor->param, ctx.api_key, kParamLimit);
  }
  if (b.vendor && is_context_length(*b.vendor)) {
    e.http_status = 422;
    e.code = kContextLengthExceeded;
    e.message = has_message(b) ? vendor_text(b.vendor->message, ctx.api_key)
                               : std::string("the request exceeds the model's context length");
    if (e.param.empty()) {
      e.param = "messages";
    }
    return e;
  }
  if (b.vendor && is_unsupported_parameter(*b.vendor)) {
    e.http_status = 422;
    e.code = kUnsupportedParameter;
  }
  if (has_message(b)) {
    e.message = std::string(kRejectedPrefix) + vendor_text(b.vendor->message, ctx.api_key);
  } else {
    e.message =
        "upstream rejected the request (HTTP " + std::to_string(status) + body_shape(b, headers, count) + ")";
  }
  return e;
}

// OpenAI's precise hint first (its own SDKs prefer it), then Retry-After.
int64_t retry_hint_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) {
  const int64_t precise = delay_header_ms(headers, count, "retry-after-ms");
  return precise >= 0 ? precise : retry_after_ms(headers, count, now_ms);
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
  const int64_t retry_ms = retry_hint_ms(headers, count, ctx.now_unix_ms);
  if (status == 408) {
    return mapped(row, "the upstream provider timed out (HTTP 408)", retry_ms);
  }

  const BodyView b = inspect(body);
  if (status == 400 || status == 422) {
    return map_rejected(ctx, status, row, b, headers, count);
  }
  if (status == 429) {
    if (b.vendor && (b.vendor->type == "insufficient_quota" || b.vendor->code == "insufficient_quota")) {
      return provider_failed(std::string(kQuotaMessage), false);
    }
    return mapped(row, rate_limited_message(retry_ms), retry_ms);
  }

  std::string message = "upstream provider returned HTTP " + std::to_string(status);
  if (has_message(b)) {
    message += ": " + vendor_text(b.vendor->message, ctx.api_key);
  } else {
    message += body_shape(b, headers, count);
  }
  return mapped(row, std::move(message), retry_ms);
}

std::string with_vendor_message(std::string prefix, const Json& doc, std::string_view api_key) {
  if (auto v = read_vendor_error(doc); v && !v->message.empty()) {
    prefix += ": ";
    prefix += vendor_text(v->message, api_key);
  }
  return prefix;
}

}  // namespace mgw::openai
