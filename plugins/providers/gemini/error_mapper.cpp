#include "error_mapper.h"

#include "http_util.h"
#include "retry_after.h"
#include "secret_mask.h"
#include "vendor_error.h"

#include <modelgw/sdk.hpp>

#include <optional>
#include <utility>

namespace mgw::gemini {
namespace {

// Fixed text where the vendor's own would be unsafe or useless to a client:
// a credentials failure is the operator's to fix, and vendors' messages about
// keys may quote them.
constexpr std::string_view kCredentialsMessage =
    "the upstream provider rejected the gateway's credentials; the operator must check the provider's "
    "api_key";
constexpr std::string_view kRejectedPrefix = "upstream rejected the request: ";

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
  v.doc = parse_bounded(body);
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
// is not a Google error): what we can say about a body without echoing it.
std::string body_shape(const BodyView& b, const mgw_header* headers, std::size_t count) {
  if (b.blank) {
    return " with an empty body";
  }
  if (b.doc.is_discarded()) {
    return " with a non-JSON body (" + media_type(headers, count) + ")";
  }
  return {};
}

// ": <vendor message>" when there is one, else what the body looked like.
std::string vendor_suffix(const ErrorContext& ctx, const BodyView& b, const mgw_header* headers,
                          std::size_t count) {
  if (has_message(b)) {
    return ": " + vendor_text(b.vendor->message, ctx.api_key);
  }
  return body_shape(b, headers, count);
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

MappedError map_rejected(const ErrorContext& ctx, int32_t status, const BodyView& b,
                         const mgw_header* headers, std::size_t count) {
  MappedError e;
  e.retryable = false;
  if (b.vendor && is_context_length(*b.vendor)) {
    e.http_status = 422;
    e.code = kContextLengthExceeded;
    e.message = vendor_text(b.vendor->message, ctx.api_key);
    e.param = "messages";
    return e;
  }
  // Gemini's field names (generation_config.temperature, contents[2].parts)
  // are not the client's, so no param is guessed from them.
  e.http_status = 400;
  e.code = kInvalidParameter;
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

  const BodyView b = inspect(body);
  // A bad key comes back as 400 INVALID_ARGUMENT "API key not valid": not the
  // client's fault, and not to be retried.
  if (b.vendor && is_credentials_error(*b.vendor)) {
    return MappedError{502, kProviderFailed, std::string(kCredentialsMessage), {}, false};
  }
  // The header first (a proxy in between may set its own), then Gemini's hint.
  int64_t retry_ms = retry_after_header_ms(headers, count, ctx.now_unix_ms);
  if (retry_ms < 0 && b.vendor) {
    retry_ms = retry_delay_ms(*b.vendor).value_or(-1);
  }

  if (status == 400 || status == 422) {
    return map_rejected(ctx, status, b, headers, count);
  }
  if (status == 429) {
    std::string message = "the upstream provider is rate limiting; retry ";
    message += retry_ms >= 0 ? "after " + seconds_text(retry_ms) : std::string("later");
    return MappedError{429, kRateLimitExceeded, std::move(message), {}, true, retry_ms};
  }
  if (status == 408 || status == 504) {
    return MappedError{504,
                       kProviderTimeout,
                       "the upstream provider timed out (HTTP " + std::to_string(status) + ")" +
                           vendor_suffix(ctx, b, headers, count),
                       {},
                       true,
                       retry_ms};
  }
  const bool server_error = status >= 500 && status <= 599;
  return MappedError{
      502,
      kProviderFailed,
      "upstream provider returned HTTP " + std::to_string(status) + vendor_suffix(ctx, b, headers, count),
      {},
      server_error,
      server_error ? retry_ms : -1};
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

}  // namespace mgw::gemini
