// Strict reading of one HTTP/1.1 request (RFC 9112): Beast's incremental
// parser does the grammar (request line, fields, Content-Length, chunked
// framing); this class adds what a gateway in front of other servers must
// refuse so that no two parties can see different request boundaries
// (sections 2.2, 3.2, 5, 6.1, 6.3): bare CR or LF, control characters,
// obs-fold, Content-Length beside Transfer-Encoding or given twice, any
// transfer coding but chunked, a missing or repeated Host, repeated
// Authorization or Content-Type, versions other than 1.0 and 1.1.
#pragma once

#include "http/server_call.h"

#include <boost/beast/http/basic_parser.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::http {

// Why a request was refused before it reached a handler.
struct Refusal {
  int status = 400;
  std::string code = "invalid_parameter";
  std::string message;
  int retry_after_s = -1;  // sets Retry-After when >= 0
};

struct RequestLimits {
  std::size_t max_header_bytes = 32 * 1024;  // the whole head
  std::size_t max_body_bytes = 4 * 1024 * 1024;
};

// The first problem in a complete request head (request line to the empty
// line, CRLFs included) that Beast's grammar lets through; nullopt when none.
std::optional<Refusal> scan_head_bytes(std::string_view head);

// The bytes of the empty lines (CRLF) that start `buffer`: RFC 9112 section
// 2.2 has a server ignore them before a request line (a client may send one
// after a POST body). Only whole CRLFs; a lone CR waits for more.
std::size_t leading_empty_lines(std::string_view buffer);

// Where the head ends (just after its empty line) in `buffer`, searching from
// `from`; npos while it is incomplete.
std::size_t find_head_end(std::string_view buffer, std::size_t from);

class RequestParser final : public boost::beast::http::basic_parser<true> {
 public:
  RequestParser(Request& out, const RequestLimits& limits);

  // After put() failed: what to answer. Built from the parser's error when
  // no check of ours set a better one; `head` is the request head as read.
  Refusal refusal(boost::beast::error_code ec, std::string_view head) const;

  bool expects_continue() const { return expect_continue_; }
  bool has_body() const { return has_length_ ? length_ > 0 : chunked_; }

 private:
  void on_request_impl(boost::beast::http::verb method, boost::beast::string_view method_str,
                       boost::beast::string_view target, int version, boost::beast::error_code& ec) override;
  void on_response_impl(int, boost::beast::string_view, int, boost::beast::error_code&) override {}
  void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                     boost::beast::string_view value, boost::beast::error_code& ec) override;
  void on_header_impl(boost::beast::error_code& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                         boost::beast::error_code& ec) override;
  std::size_t on_body_impl(boost::beast::string_view body, boost::beast::error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view extensions,
                            boost::beast::error_code& ec) override;
  std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body,
                                 boost::beast::error_code& ec) override;
  void on_finish_impl(boost::beast::error_code&) override {}

  void refuse(boost::beast::error_code& ec, int status, std::string code, std::string message);
  std::size_t take_body(boost::beast::string_view body, boost::beast::error_code& ec);

  Request& out_;
  RequestLimits limits_;
  std::optional<Refusal> refusal_;
  bool header_done_ = false;
  int hosts_ = 0;
  bool has_length_ = false;
  std::uint64_t length_ = 0;
  bool chunked_ = false;
  bool expect_continue_ = false;
};

}  // namespace modelgw::http
