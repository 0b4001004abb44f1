#include "error_mapper.h"

#include "http_util.h"
#include "retry_after.h"
#include "secret_mask.h"
#include "vendor_error.h"

#include <modelgw/sdk.hpp>

#include <optional>
#include <utility>

namespace mgw::openai {
namespace {

// Fixed texts where the vendor's own would be unsafe or useless to a client.
// OpenAI's 401 message quotes part of the key, so it is never passed on.
constexpr std::string_view kCredentialsMessage =
    "the upstream provider rejected the gateway's credentials; the operator must check the provider's "
    "api_key";
constexpr std::string_view kQuotaMessage = "the upstream provider's account is out of quota";
constexpr std::string_view kRejectedPrefix = "upstream rejected the request: ";
constexpr std::size_t kParamLimit = 128;

// What the body tells us, parsed at most once.
struct BodyView {
  explicit BodyView(bool is_blank) : blank(is_blank) {}
  Json doc;
  std::optional<VendorError> vendor;  // views into doc
  bool blank;
};

BodyView inspect(std::string_view body) {
  BodyView v(body.find_first_not_of(" \t\r\n") == std::string_view::npos);
  if (v.blank) {
    return v;
  }
  v.doc = parse_vendor_json(body);
  if (!v.doc.is_discarded()) {
    v.vendor = read_vendor_error(v.doc);
  }
  return v;
}

bool has_message(const BodyView& b) {
  return b.vendor && !b.vendor->message.empty();
}

// The vendor's Content-Type reduced to its media type, printable token bytes
// only: it is vendor-controlled text going into a client's message.
std::string media_type(const mgw_header* headers, std::size_t count) {
  auto value = find_header(headers, count, "content-type");
  std::string out;
  if (value) {
    for (char c : value->substr(0, value->find(';'))) {
      const bool token = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         std::string_view("!#$%&'*+.^_`|~/-").find(c) != std::string_view::npos;
      if (token && out.size() < 100) {
        out.push_back(c);
      }
    }
  }
  return out.empty() ? std::string("no content type") : out;
}

// " with an empty body", " with a non-JSON body (text/html)" or "" (JSON that
// is not an OpenAI error): what we can say about a body without echoing it.
std::string body_shape(const BodyView& b, const mgw_header* headers, std::size_t count) {
  if (b.blank) {
    return " with an empty body";
  }
  if (b.doc.is_discarded()) {
    return " with a non-JSON body (" + media_type(headers, count) + ")";
  }
  return {};
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

MappedError map_rejected(const ErrorContext& ctx, int32_t status, const BodyView& b,
                         const mgw_header* headers, std::size_t count) {
  MappedError e;
  e.retryable = false;
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
  const bool unsupported = b.vendor && is_unsupported_parameter(*b.vendor);
  e.http_status = unsupported ? 422 : 400;
  e.code = unsupported ? kUnsupportedParameter : kInvalidParameter;
  if (has_message(b)) {
    e.message = std::string(kRejectedPrefix) + vendor_text(b.vendor->message, ctx.api_key);
  } else {
    e.message =
        "upstream rejected the request (HTTP " + std::to_string(status) + body_shape(b, headers, count) + ")";
  }
  return e;
}

std::string seconds_text(int64_t ms) {
  const int64_t seconds = (ms + 999) / 1000;
  return std::to_string(seconds) + (seconds == 1 ? " second" : " seconds");
}

}  // namespace

MappedError map_http_error(const ErrorContext& ctx, int32_t status, const mgw_header* headers,
                           std::size_t count, std::string_view body) {
  // Rows that never look at the body come first: no parse, nothing to leak.
  if (status == 401 || status == 403) {
    return MappedError{502, kProviderFailed, std::string(kCredentialsMessage), {}, false};
  }
  if (status == 404) {
    return MappedError{502,
                       kProviderFailed,
                       "the upstream provider does not know model '" + std::string(ctx.upstream_model) + "'",
                       {},
                       false};
  }
  const int64_t retry_ms = retry_after_ms(headers, count, ctx.now_unix_ms);
  if (status == 408) {
    return MappedError{504,  kProviderTimeout, "the upstream provider timed out (HTTP 408)", {},
                       true, retry_ms};
  }

  const BodyView b = inspect(body);
  if (status == 400 || status == 422) {
    return map_rejected(ctx, status, b, headers, count);
  }
  if (status == 429) {
    if (b.vendor && (b.vendor->type == "insufficient_quota" || b.vendor->code == "insufficient_quota")) {
      return MappedError{502, kProviderFailed, std::string(kQuotaMessage), {}, false};
    }
    std::string message = "the upstream provider is rate limiting; retry ";
    message += retry_ms >= 0 ? "after " + seconds_text(retry_ms) : std::string("later");
    return MappedError{429, kRateLimitExceeded, std::move(message), {}, true, retry_ms};
  }

  const bool server_error = status >= 500 && status <= 599;
  std::string message = "upstream provider returned HTTP " + std::to_string(status);
  if (has_message(b)) {
    message += ": " + vendor_text(b.vendor->message, ctx.api_key);
  } else {
    message += body_shape(b, headers, count);
  }
  return MappedError{502, kProviderFailed, std::move(message),
                     {},  server_error,    server_error ? retry_ms : -1};
}

MappedError provider_failed(std::string message, bool retryable) {
  return MappedError{502, kProviderFailed, std::move(message), {}, retryable};
}

std::string with_vendor_message(std::string prefix, const Json& doc, std::string_view api_key) {
  if (auto v = read_vendor_error(doc); v && !v->message.empty()) {
    prefix += ": ";
    prefix += vendor_text(v->message, api_key);
  }
  return prefix;
}

void emit_error(const mgw_response_sink* out, const MappedError& e) noexcept {
  fail(out, e.http_status, e.code, e.message, e.param, e.retryable, e.retry_after_ms);
}

}  // namespace mgw::openai
