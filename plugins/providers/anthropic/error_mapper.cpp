#include "error_mapper.h"

#include "http_util.h"
#include "retry_after.h"
#include "secret_mask.h"
#include "vendor_error.h"

#include <modelgw/sdk.hpp>

#include <array>
#include <optional>
#include <utility>

namespace mgw::anthropic {
namespace {

// Fixed texts where the vendor's own would be unsafe or useless to a client:
// an authentication failure is the operator's to fix, and whatever the vendor
// says about it may quote the credential.
constexpr std::string_view kCredentialsMessage =
    "the upstream provider rejected the gateway's credentials; the operator must check the provider's "
    "api_key";
constexpr std::string_view kCreditMessage = "the upstream provider's account is out of credit";
constexpr std::string_view kTooLargeMessage = "request too large for the upstream provider";
constexpr std::string_view kRejectedPrefix = "upstream rejected the request: ";

// Anthropic reports an over-long prompt as a plain invalid_request_error
// ("prompt is too long: 208310 tokens > 200000 maximum", "input length and
// `max_tokens` exceed context limit: …"): only the wording tells.
constexpr std::array<std::string_view, 4> kContextWords = {"prompt is too long", "exceed context limit",
                                                           "context window", "context length"};
// An empty account is also a 400 invalid_request_error ("Your credit balance
// is too low…", "You have reached your specified API usage limits…"), but no
// change to the request cures it: it is the operator's, like a 401.
constexpr std::array<std::string_view, 2> kCreditWords = {"credit balance", "usage limits"};

template <std::size_t N>
bool says_any(std::string_view text, const std::array<std::string_view, N>& words) {
  for (auto w : words) {
    if (icontains(text, w)) {
      return true;
    }
  }
  return false;
}

// Anthropic names the offending field before a colon ("max_tokens: 10000 >
// 4096, …", "messages.1.content.0.text: …"), in its own terms. Only fields with
// a sure OpenAI counterpart are passed on as `param`: a wrong pointer is worse
// than none.
std::string client_param(std::string_view message) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kFields = {{
      {"max_tokens", "max_tokens"},
      {"temperature", "temperature"},
      {"top_p", "top_p"},
      {"stop_sequences", "stop"},
      {"tools", "tools"},
      {"tool_choice", "tool_choice"},
      {"metadata", "user"},
      {"messages", "messages"},
      {"system", "messages"},
  }};
  const auto colon = message.find(':');
  if (colon == std::string_view::npos) {
    return {};
  }
  const std::string_view path = message.substr(0, colon);
  const std::string_view head = path.substr(0, path.find('.'));
  for (const auto& [vendor, client] : kFields) {
    if (head == vendor) {
      return std::string(client);
    }
  }
  return {};
}

// The vendor's Content-Type reduced to its media type, token bytes only: it is
// vendor-controlled text going into a client's message.
std::string media_type(const mgw_header* headers, std::size_t count) {
  std::string out;
  if (auto value = find_header(headers, count, "content-type")) {
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

// What the body says, parsed once.
struct Body {
  Json doc;
  std::optional<VendorError> vendor;  // views into doc
  bool blank = false;

  bool has_message() const { return vendor && !vendor->message.empty(); }
};

Body inspect(std::string_view text) {
  Body b;
  b.blank = text.find_first_not_of(" \t\r\n") == std::string_view::npos;
  if (!b.blank) {
    b.doc = parse_vendor_json(text);
    b.vendor = read_vendor_error(b.doc);
  }
  return b;
}

// ": <masked vendor message>", or what can be said about the body without
// echoing it: " with an empty body", " with a non-JSON body (text/html)", or
// nothing for JSON that carries no message.
std::string detail(const ErrorContext& ctx, const Body& b, const mgw_header* headers, std::size_t count) {
  if (b.has_message()) {
    return ": " + vendor_text(b.vendor->message, ctx.api_key);
  }
  if (b.blank) {
    return " with an empty body";
  }
  if (b.doc.is_discarded()) {
    return " with a non-JSON body (" + media_type(headers, count) + ")";
  }
  return {};
}

MappedError map_bad_request(const ErrorContext& ctx, int32_t status, const Body& b, const mgw_header* headers,
                            std::size_t count) {
  const std::string_view said = b.has_message() ? b.vendor->message : std::string_view{};
  if (says_any(said, kContextWords)) {
    return MappedError{422, kContextLengthExceeded, vendor_text(said, ctx.api_key), "messages", false};
  }
  if (says_any(said, kCreditWords)) {
    return MappedError{502, kProviderFailed, std::string(kCreditMessage), {}, false};
  }
  MappedError e{400, kInvalidParameter, {}, client_param(said), false};
  e.message = b.has_message() ? std::string(kRejectedPrefix) + vendor_text(said, ctx.api_key)
                              : "upstream rejected the request (HTTP " + std::to_string(status) +
                                    detail(ctx, b, headers, count) + ")";
  return e;
}

std::string seconds_text(int64_t ms) {
  const int64_t seconds = (ms + 999) / 1000;
  return std::to_string(seconds) + (seconds == 1 ? " second" : " seconds");
}

}  // namespace

MappedError map_http_error(const ErrorContext& ctx, int32_t status, const mgw_header* headers,
                           std::size_t count, std::string_view body) {
  // Rows that never read the body come first: nothing to parse, nothing to leak.
  switch (status) {
    case 401:
    case 403:
      return MappedError{502, kProviderFailed, std::string(kCredentialsMessage), {}, false};
    case 402:
      return MappedError{502, kProviderFailed, std::string(kCreditMessage), {}, false};
    case 404:
      return MappedError{
          502,
          kProviderFailed,
          "the upstream provider does not know model '" + std::string(ctx.upstream_model) + "'",
          {},
          false};
    case 413:
      return MappedError{400, kInvalidParameter, std::string(kTooLargeMessage), {}, false};
    default:
      break;
  }
  const int64_t retry_ms = retry_after_ms(headers, count, ctx.now_unix_ms);
  if (status == 408) {
    return MappedError{504,  kProviderTimeout, "the upstream provider timed out (HTTP 408)", {},
                       true, retry_ms};
  }
  if (status == 429) {
    std::string message = "the upstream provider is rate limiting; retry ";
    message += retry_ms >= 0 ? "after " + seconds_text(retry_ms) : std::string("later");
    return MappedError{429, kRateLimitExceeded, std::move(message), {}, true, retry_ms};
  }
  const Body b = inspect(body);
  if (status == 400 || status == 422) {
    return map_bad_request(ctx, status, b, headers, count);
  }
  // 500, 502, 503, 504 and Anthropic's 529 overloaded_error: a retry may cure
  // them. Any other status (1xx, 3xx, 409, …) is a surprise no retry fixes.
  const bool server_error = status >= 500 && status <= 599;
  return MappedError{
      502,
      kProviderFailed,
      "upstream provider returned HTTP " + std::to_string(status) + detail(ctx, b, headers, count),
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

}  // namespace mgw::anthropic
