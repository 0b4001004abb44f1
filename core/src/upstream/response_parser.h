// The strict parser of one upstream response (RFC 9112), on Beast's
// incremental HTTP/1.1 parser. Beast already refuses Content-Length together
// with Transfer-Encoding, two differing Content-Length values, a negative or
// non-numeric length, a bad chunk-size line and anything but CRLF after a
// chunk; this class adds what Beast lets through: a second Content-Length
// field (even with the same value), a list as its value, a status under 100
// and 101 Switching Protocols (never asked for). Body bytes are not copied:
// each put() yields at most one piece, as a view into the caller's input.
#pragma once

#include <boost/beast/http/basic_parser.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::upstream {

class ResponseParser : public boost::beast::http::basic_parser<false> {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;
  using ErrorCode = boost::beast::error_code;

  // `head_request`: the response to a HEAD has no body whatever it says.
  explicit ResponseParser(bool head_request);

  // Feeds `input`; returns how many bytes were consumed. The body piece found
  // on this call, if any, is then in piece() (a view into `input`).
  std::size_t feed(std::string_view input, ErrorCode& ec);
  std::string_view piece() const { return piece_; }

  int status() const { return status_; }
  // The body's length when the head gave one (known once the body begins).
  std::optional<std::uint64_t> body_length() const { return body_length_; }
  bool interim() const { return status_ >= 100 && status_ < 200; }
  Headers& headers() { return headers_; }
  const Headers& headers() const { return headers_; }

 private:
  void on_request_impl(boost::beast::http::verb, boost::beast::string_view, boost::beast::string_view, int,
                       ErrorCode& ec) override;
  void on_response_impl(int code, boost::beast::string_view reason, int version, ErrorCode& ec) override;
  void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                     boost::beast::string_view value, ErrorCode& ec) override;
  void on_header_impl(ErrorCode& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length, ErrorCode& ec) override;
  std::size_t on_body_impl(boost::beast::string_view body, ErrorCode& ec) override;
  void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view extensions, ErrorCode& ec) override;
  std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body,
                                 ErrorCode& ec) override;
  void on_finish_impl(ErrorCode& ec) override;

  int status_ = 0;
  bool in_trailer_ = false;
  bool chunk_line_short_ = false;  // the last feed() ended inside a chunk line (feed() says why)
  int content_lengths_ = 0;
  std::optional<std::uint64_t> body_length_;
  Headers headers_;
  std::string_view piece_;
};

}  // namespace modelgw::upstream
