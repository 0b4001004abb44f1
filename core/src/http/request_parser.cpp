#include "http/request_parser.h"

#include "util/ascii.h"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cctype>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace modelgw::http {
namespace {

namespace bhttp = boost::beast::http;

// Limits on single fields, as the gateway has always had them: a bearer
// token or key longer than a field value can be is not valid anyway.
constexpr std::size_t kMaxFieldName = 256;
constexpr std::size_t kMaxFieldValue = 8192;
constexpr std::size_t kMaxFields = 100;

using util::iequals;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Refusal bad(std::string message) {
  return Refusal{400, "invalid_parameter", std::move(message)};
}

// The first position from `i` whose byte is not printable ASCII (a control
// byte, DEL, or a byte >= 0x80), or head.size(). Sixteen bytes at a time
// where SSE2 is there (every x86-64): a head is mostly printable text
// between line ends, and this runs on every request.
std::size_t next_unprintable(std::string_view head, std::size_t i) {
#if defined(__SSE2__)
  // A signed "less than 0x20" is true for control bytes and for every byte
  // >= 0x80; DEL is the one more.
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i del = _mm_set1_epi8(0x7f);
  while (i + 16 <= head.size()) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(head.data() + i));
    const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  while (i < head.size()) {
    const auto c = static_cast<unsigned char>(head[i]);
    if (c < 0x20 || c >= 0x7f) break;
    ++i;
  }
  return i;
}

}  // namespace

std::size_t leading_empty_lines(std::string_view buffer) {
  std::size_t n = 0;
  while (buffer.size() >= n + 2 && buffer[n] == '\r' && buffer[n + 1] == '\n') n += 2;
  return n;
}

std::size_t find_head_end(std::string_view buffer, std::size_t from) {
  from = from >= 3 ? from - 3 : 0;  // the empty line may straddle two reads
  const std::size_t at = buffer.find("\r\n\r\n", from);
  return at == std::string_view::npos ? at : at + 4;
}

std::optional<Refusal> scan_head_bytes(std::string_view head) {
  for (std::size_t i = 0; i < head.size(); ++i) {
    i = next_unprintable(head, i);  // printable ASCII needs no look
    if (i >= head.size()) break;
    const auto c = static_cast<unsigned char>(head[i]);
    if (c == '\r') {
      if (i + 1 >= head.size() || head[i + 1] != '\n') return bad("the request has a CR not followed by LF");
      // A line that starts with whitespace continues the previous one
      // (obs-fold), which RFC 9112 section 5.2 lets a server refuse; the
      // same rule refuses whitespace before the first field.
      if (i + 2 < head.size() && (head[i + 2] == ' ' || head[i + 2] == '\t')) {
        return bad(
            "a request header is folded over several lines (obs-fold), which the gateway does not accept");
      }
      ++i;
      continue;
    }
    if (c == '\n') return bad("the request has a line ending in LF without CR");
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      return bad("the request head contains a control character (byte " + std::to_string(c) + ")");
    }
  }
  return std::nullopt;
}

RequestParser::RequestParser(Request& out, const RequestLimits& limits) : out_(out), limits_(limits) {
  header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(limits.max_header_bytes + 1, UINT32_MAX)));
  // The body's bound is ours (take_body): over it is a 413, not a parse
  // error. Not boost::none: Beast 1.74 compares lengths against the optional
  // and takes none as smaller than any length.
  body_limit(std::numeric_limits<std::uint64_t>::max());
  eager(true);
}

void RequestParser::refuse(boost::beast::error_code& ec, int status, std::string code, std::string message) {
  if (!refusal_) refusal_ = Refusal{status, std::move(code), std::move(message)};
  ec = bhttp::error::bad_value;  // any error: it stops the parser; refusal() answers from refusal_
}

void RequestParser::on_request_impl(bhttp::verb, boost::beast::string_view method_str,
                                    boost::beast::string_view target, int version,
                                    boost::beast::error_code& ec) {
  if (version != 10 && version != 11) {
    return refuse(ec, 505, "http_version_not_supported",
                  "the gateway speaks HTTP/1.1 (and 1.0); the request line names another version");
  }
  if (target.empty() || (target[0] != '/' && !(target == "*" && method_str == "OPTIONS"))) {
    return refuse(ec, 400, "invalid_parameter", "the request target must be a path starting with '/'");
  }
  out_.method.assign(method_str.data(), method_str.size());
  out_.target.assign(target.data(), target.size());
  out_.version_minor = version % 10;
}

void RequestParser::on_field_impl(bhttp::field name, boost::beast::string_view name_in,
                                  boost::beast::string_view value_in, boost::beast::error_code& ec) {
  const std::string_view name_string(name_in.data(), name_in.size());
  const std::string_view value(value_in.data(), value_in.size());
  if (header_done_) return;  // a trailer field: read and dropped (RFC 9112 section 7.1.2)
  if (name_string.size() > kMaxFieldName) {
    return refuse(ec, 400, "invalid_parameter", "a request header name is longer than 256 bytes");
  }
  if (value.size() > kMaxFieldValue) {
    return refuse(
        ec, 400, "invalid_parameter",
        "a request header value is longer than 8192 bytes, the most the gateway reads (a bearer token "
        "or key that long is not valid)");
  }
  if (out_.fields.size() >= kMaxFields) {
    return refuse(ec, 400, "invalid_parameter", "the request has more than 100 header fields");
  }
  auto once = [&](std::string_view what) {
    for (const Field& f : out_.fields) {
      if (iequals(f.name, name_string)) {
        refuse(ec, 400, "invalid_parameter",
               "the request has more than one " + std::string(what) + " header");
        return false;
      }
    }
    return true;
  };
  switch (name) {
    case bhttp::field::host:
      ++hosts_;
      if (hosts_ > 1)
        return refuse(ec, 400, "invalid_parameter", "the request has more than one Host header");
      break;
    case bhttp::field::content_length:
      // Beast has checked the value (digits, no conflict with chunked).
      if (!once("Content-Length")) return;
      has_length_ = true;
      length_ = 0;
      for (char c : trim(value)) length_ = length_ * 10 + static_cast<std::uint64_t>(c - '0');
      break;
    case bhttp::field::transfer_encoding:
      if (!iequals(trim(value), "chunked")) {
        return refuse(
            ec, 400, "invalid_parameter",
            "Transfer-Encoding must be 'chunked' alone; the gateway accepts no other transfer coding");
      }
      // RFC 9112 section 6.1: Transfer-Encoding in an HTTP/1.0 message is
      // faulty framing (a 1.0 hop could not have sent it): refuse and close.
      if (out_.version_minor == 0) {
        return refuse(
            ec, 400, "invalid_parameter",
            "an HTTP/1.0 request cannot use Transfer-Encoding; send Content-Length, or use HTTP/1.1");
      }
      chunked_ = true;
      break;
    case bhttp::field::authorization:
      if (!once("Authorization")) return;
      break;
    case bhttp::field::content_type:
      if (!once("Content-Type")) return;
      break;
    case bhttp::field::expect:
      expect_continue_ = iequals(trim(value), "100-continue");
      break;
    default:
      break;
  }
  // Grown as fields come, not reserved ahead: an open stream holds its
  // request for its whole life, and a reservation for an SDK's dozen fields
  // measured +0.5 KB per stream against the 20 KB per stream target.
  out_.fields.push_back(Field{std::string(name_string), std::string(trim(value))});
}

void RequestParser::on_header_impl(boost::beast::error_code& ec) {
  header_done_ = true;
  if (hosts_ == 0 && out_.version_minor == 1) {
    return refuse(ec, 400, "invalid_parameter", "the request has no Host header (required in HTTP/1.1)");
  }
  const bool may_have_body = out_.method == "POST" || out_.method == "PUT" || out_.method == "PATCH";
  if (may_have_body && !has_length_ && !chunked_) {
    return refuse(ec, 411, "length_required",
                  "a " + out_.method + " request needs a Content-Length header or chunked Transfer-Encoding");
  }
  if (has_length_ && length_ > limits_.max_body_bytes) {
    out_.body_too_large = true;  // the connection reads no further; the handler answers 413
    return;
  }
  if (has_length_) out_.body.reserve(static_cast<std::size_t>(length_));
}

void RequestParser::on_body_init_impl(const boost::optional<std::uint64_t>&, boost::beast::error_code&) {}

std::size_t RequestParser::take_body(boost::beast::string_view body, boost::beast::error_code& ec) {
  if (out_.body.size() + body.size() > limits_.max_body_bytes) {
    out_.body_too_large = true;
    std::string().swap(out_.body);
    ec = bhttp::error::body_limit;
    return 0;
  }
  out_.body.append(body.data(), body.size());
  return body.size();
}

std::size_t RequestParser::on_body_impl(boost::beast::string_view body, boost::beast::error_code& ec) {
  return take_body(body, ec);
}

void RequestParser::on_chunk_header_impl(std::uint64_t, boost::beast::string_view,
                                         boost::beast::error_code&) {}

std::size_t RequestParser::on_chunk_body_impl(std::uint64_t, boost::beast::string_view body,
                                              boost::beast::error_code& ec) {
  return take_body(body, ec);
}

Refusal RequestParser::refusal(boost::beast::error_code ec, std::string_view head) const {
  if (refusal_) return *refusal_;
  if (ec == bhttp::error::bad_version) {
    // Beast knows only 1.x; a well-formed other version is not ours to speak.
    const std::string_view line = head.substr(0, head.find('\r'));
    const std::size_t at = line.rfind(" HTTP/");
    if (at != std::string_view::npos && line.size() == at + 9 &&
        std::isdigit(static_cast<unsigned char>(line[at + 6])) && line[at + 7] == '.' &&
        std::isdigit(static_cast<unsigned char>(line[at + 8]))) {
      return Refusal{505, "http_version_not_supported",
                     "the gateway speaks HTTP/1.1 (and 1.0); the request line names another version"};
    }
  }
  if (ec == bhttp::error::header_limit) {
    return Refusal{431, "request_header_fields_too_large",
                   "the request head is longer than the " + std::to_string(limits_.max_header_bytes) +
                       " bytes the gateway reads (server.max_header_bytes)"};
  }
  if (ec == bhttp::error::bad_content_length) {
    return bad("Content-Length must be one non-negative integer and cannot be sent with Transfer-Encoding");
  }
  if (ec == bhttp::error::bad_transfer_encoding) {
    return bad("Transfer-Encoding must be 'chunked' once and cannot be sent with Content-Length");
  }
  if (ec == bhttp::error::bad_chunk || ec == bhttp::error::bad_chunk_extension) {
    return bad("the chunked request body is malformed (a chunk-size line is not valid)");
  }
  if (ec == bhttp::error::bad_field || ec == bhttp::error::bad_value || ec == bhttp::error::bad_obs_fold) {
    return bad("a request header line is not 'name: value' (RFC 9112 section 5)");
  }
  return bad("the request line is not 'METHOD /path HTTP/1.1'");
}

}  // namespace modelgw::http
