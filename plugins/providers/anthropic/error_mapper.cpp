#include "error_mapper.h"

#include "vendor_error.h"

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/retry_after.hpp>
#include <modelgw/provider/secret_mask.hpp>

#include <array>
#include <optional>
#include <utility>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

// Anthropic's rows over the SDK's defaults: 402 is an account out of credit
// (the operator's, like a 401), 413 a request too large for it.
constexpr std::array<StatusRow, 2> kAnthropicRows = {{
    {402, 402, {502, kProviderFailed, false}},
    {413, 413, {400, kInvalidParameter, false}},
}};
constexpr StatusTable kStatusTable(kAnthropicRows);

constexpr std::string_view kCreditMessage = "the upstream provider's account is out of credit";
constexpr std::string_view kTooLargeMessage = "request too large for the upstream provider";

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

// What the body says, parsed once.
struct Body {
  Json doc;
  std::optional<VendorError> vendor;  // views into doc
  bool blank = false;

  bool has_message() const { return vendor && !vendor->message.empty(); }
};

Body inspect(std::string_view text) {
  Body b;
  b.blank = is_blank(text);
  if (!b.blank) {
    b.doc = parse_bounded(text);
    b.vendor = read_vendor_error(b.doc);
  }
  return b;
}

// ": <masked vendor message>", or what can be said about the body without
// echoing it (body_shape).
std::string detail(const ErrorContext& ctx, const Body& b, const mgw_header* headers, std::size_t count) {
  if (b.has_message()) {
    return ": " + vendor_text(b.vendor->message, ctx.api_key);
  }
  return body_shape(b.blank, b.doc.is_discarded(), headers, count);
}

MappedError map_bad_request(const ErrorContext& ctx, int32_t status, const ErrorClass& row, const Body& b,
                            const mgw_header* headers, std::size_t count) {
  const std::string_view said = b.has_message() ? b.vendor->message : std::string_view{};
  if (says_any(said, kContextWords)) {
    return MappedError{422, kContextLengthExceeded, vendor_text(said, ctx.api_key), "messages", false};
  }
  if (says_any(said, kCreditWords)) {
    return provider_failed(std::string(kCreditMessage), false);
  }
  MappedError e = mapped(row, {});
  e.param = client_param(said);
  e.message = b.has_message() ? std::string(kRejectedPrefix) + vendor_text(said, ctx.api_key)
                              : "upstream rejected the request (HTTP " + std::to_string(status) +
                                    detail(ctx, b, headers, count) + ")";
  return e;
}

}  // namespace

MappedError map_http_error(const ErrorContext& ctx, int32_t status, const mgw_header* headers,
                           std::size_t count, std::string_view body) {
  const ErrorClass row = kStatusTable.classify(status);
  // Rows that never read the body come first: nothing to parse, nothing to leak.
  switch (status) {
    case 401:
    case 403:
      return mapped(row, std::string(kCredentialsMessage));
    case 402:
      return mapped(row, std::string(kCreditMessage));
    case 404:
      return mapped(row, unknown_model_message(ctx.upstream_model));
    case 413:
      return mapped(row, std::string(kTooLargeMessage));
    default:
      break;
  }
  const int64_t retry_ms = retry_after_ms(headers, count, ctx.now_unix_ms);
  if (status == 408) {
    return mapped(row, "the upstream provider timed out (HTTP 408)", retry_ms);
  }
  if (status == 429) {
    return mapped(row, rate_limited_message(retry_ms), retry_ms);
  }
  const Body b = inspect(body);
  if (status == 400 || status == 422) {
    return map_bad_request(ctx, status, row, b, headers, count);
  }
  // 500, 502, 503, 504 and Anthropic's 529 overloaded_error: the table makes
  // them retryable. Any other status (1xx, 3xx, 409, …) is a surprise no
  // retry fixes.
  return mapped(row,
                "upstream provider returned HTTP " + std::to_string(status) + detail(ctx, b, headers, count),
                retry_ms);
}

std::string with_vendor_message(std::string prefix, const Json& doc, std::string_view api_key) {
  if (auto v = read_vendor_error(doc); v && !v->message.empty()) {
    prefix += ": ";
    prefix += vendor_text(v->message, api_key);
  }
  return prefix;
}

}  // namespace mgw::anthropic
