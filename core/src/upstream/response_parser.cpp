#include "upstream/response_parser.h"

#include <boost/beast/http/error.hpp>

#include <limits>

namespace modelgw::upstream {

namespace http = boost::beast::http;

ResponseParser::ResponseParser(bool head_request) {
  // A vendor's head can carry many headers (CDN, rate limits); 64 KiB bounds it.
  header_limit(64 * 1024);
  // max_response_bytes is applied by the caller (as too_large, not a parse
  // error). Not boost::none: Beast 1.74 compares the length with the optional,
  // and any length is greater than none.
  body_limit(std::numeric_limits<std::uint64_t>::max());
  // One step per feed(): each call yields at most one body piece.
  eager(false);
  if (head_request) skip(true);
}

std::size_t ResponseParser::feed(std::string_view input, ErrorCode& ec) {
  piece_ = {};
  // Beast 1.74 asserts that a chunk line it asked more bytes for comes back
  // at least 5 bytes long, which is false of a first chunk that is the final
  // one ("0\r\n" and then "\r"); its code handles that case, but the assert
  // stops a build with assertions (the asan and fuzz presets). A chunk line
  // cut short is waited for until it can hold "0\r\n\r\n": nothing a
  // complete message needs is held back.
  if (chunk_line_short_ && input.size() < 5) {
    ec = http::error::need_more;
    return 0;
  }
  const std::size_t n = put(boost::asio::const_buffer(input.data(), input.size()), ec);
  chunk_line_short_ = ec == http::error::need_more && is_header_done() && chunked();
  return n;
}

void ResponseParser::on_request_impl(http::verb, boost::beast::string_view, boost::beast::string_view, int,
                                     ErrorCode& ec) {
  ec = http::error::bad_method;  // a response parser never sees a request line
}

void ResponseParser::on_response_impl(int code, boost::beast::string_view, int, ErrorCode& ec) {
  // 101 would switch the connection to another protocol, which the gateway
  // never asks for.
  if (code < 100 || code == 101) {
    ec = http::error::bad_status;
    return;
  }
  status_ = code;
}

void ResponseParser::on_field_impl(http::field name, boost::beast::string_view name_string,
                                   boost::beast::string_view value, ErrorCode& ec) {
  if (in_trailer_) return;  // trailer fields are not headers of the response
  if (name == http::field::content_length) {
    // RFC 9112 6.3: several lengths are a framing error even when equal; a
    // recipient may merge them, but a gateway that refuses them cannot be
    // made to disagree with another hop about where the body ends.
    if (++content_lengths_ > 1 || value.find(',') != boost::beast::string_view::npos) {
      ec = http::error::bad_content_length;
      return;
    }
  }
  headers_.emplace_back(std::string(name_string), std::string(value));
}

void ResponseParser::on_header_impl(ErrorCode&) {
  in_trailer_ = true;
}

void ResponseParser::on_body_init_impl(const boost::optional<std::uint64_t>& content_length, ErrorCode&) {
  if (content_length) body_length_ = *content_length;
}

std::size_t ResponseParser::on_body_impl(boost::beast::string_view body, ErrorCode&) {
  piece_ = std::string_view(body.data(), body.size());
  return body.size();
}

void ResponseParser::on_chunk_header_impl(std::uint64_t, boost::beast::string_view, ErrorCode&) {}

std::size_t ResponseParser::on_chunk_body_impl(std::uint64_t, boost::beast::string_view body, ErrorCode&) {
  piece_ = std::string_view(body.data(), body.size());
  return body.size();
}

void ResponseParser::on_finish_impl(ErrorCode&) {}

}  // namespace modelgw::upstream
