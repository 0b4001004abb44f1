// The strict request reader: what RFC 9112 says a server in front of others
// must refuse is refused, with the status the gateway answers.
#include "http/request_parser.h"
#include "util/ascii.h"

#include <boost/beast/http/error.hpp>

#include <gtest/gtest.h>

namespace {

using modelgw::http::find_head_end;
using modelgw::http::Refusal;
using modelgw::http::Request;
using modelgw::http::RequestLimits;
using modelgw::http::RequestParser;
using modelgw::http::scan_head_bytes;

struct Parsed {
  Request request;
  std::optional<Refusal> refusal;
  bool done = false;
  std::size_t used = 0;
};

// Feeds `wire` (a whole request) the way the connection does: head checks,
// then Beast's parser over everything.
Parsed parse(const std::string& wire, RequestLimits limits = {}) {
  Parsed p;
  const std::size_t end = find_head_end(wire, 0);
  if (end == std::string::npos) {
    p.refusal = Refusal{0, "incomplete", ""};
    return p;
  }
  if (auto bad = scan_head_bytes(std::string_view(wire).substr(0, end))) {
    p.refusal = bad;
    return p;
  }
  RequestParser parser(p.request, limits);
  boost::beast::error_code ec;
  p.used = parser.put(boost::asio::buffer(wire), ec);
  if (ec == boost::beast::http::error::need_more) ec = {};
  if (ec && !p.request.body_too_large) p.refusal = parser.refusal(ec, wire);
  p.done = parser.is_done();
  return p;
}

int status_of(const std::string& wire) {
  auto p = parse(wire);
  return p.refusal ? p.refusal->status : 0;
}

TEST(RequestParserTest, AcceptsAPlainPostWithItsBody) {
  auto p = parse("POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}");
  ASSERT_FALSE(p.refusal) << p.refusal->message;
  EXPECT_TRUE(p.done);
  EXPECT_EQ(p.request.method, "POST");
  EXPECT_EQ(p.request.path(), "/v1/chat/completions");
  EXPECT_EQ(p.request.query(), "x=1");
  EXPECT_EQ(p.request.body, "{}");
  EXPECT_EQ(p.request.header("content-length"), "2");
}

TEST(RequestParserTest, DecodesChunkedAndDropsTrailers) {
  auto p = parse(
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n");
  ASSERT_FALSE(p.refusal) << p.refusal->message;
  EXPECT_TRUE(p.done);
  EXPECT_EQ(p.request.body, "{}");
  EXPECT_EQ(p.request.header("X-Trailer"), "");
}

TEST(RequestParserTest, StopsAtTheEndOfOneRequestSoPipeliningWorks) {
  const std::string one = "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n";
  auto p = parse(one + one);
  ASSERT_FALSE(p.refusal);
  EXPECT_TRUE(p.done);
  EXPECT_EQ(p.used, one.size());
}

TEST(RequestParserTest, RefusesSmugglingFraming) {
  EXPECT_EQ(
      status_of(
          "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
      400);
  EXPECT_EQ(
      status_of(
          "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n"),
      400);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
            400);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"),
            400);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
            400);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n"), 400);
  EXPECT_EQ(
      status_of(
          "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nGET / HTTP/1.1\r\n\r\n"),
      400);
}

TEST(RequestParserTest, RefusesMalformedHeads) {
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n"), 400);  // obs-fold
  EXPECT_EQ(status_of(std::string("GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n", 35)), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\r\nX : a\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\n\r\n"), 400);  // no Host
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n"), 400);  // bare LF
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n"), 400);  // bare CR
  EXPECT_EQ(status_of("GET / HTTP/2.0\r\nHost: a\r\n\r\n"), 505);
  EXPECT_EQ(status_of("GET http://x/ HTTP/1.1\r\nHost: a\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: a\r\nX: " + std::string(9000, 'v') + "\r\n\r\n"), 400);
}

// The byte rules of a head, one byte at a time: what scan_head_bytes must
// decide however it skips printable runs.
std::optional<std::string> head_fault(std::string_view head) {
  for (std::size_t i = 0; i < head.size(); ++i) {
    const auto c = static_cast<unsigned char>(head[i]);
    if (c == '\r') {
      if (i + 1 >= head.size() || head[i + 1] != '\n') return "bare CR";
      if (i + 2 < head.size() && (head[i + 2] == ' ' || head[i + 2] == '\t')) return "obs-fold";
      ++i;
    } else if (c == '\n') {
      return "bare LF";
    } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
      return "control " + std::to_string(c);
    }
  }
  return std::nullopt;
}

TEST(RequestParserTest, EveryByteAtEveryPlaceOfAHeadIsJudgedAsByteByByte) {
  // Every byte value at each position of a 70-byte line (the sixteen-byte
  // runs, their edges and the tail), before and after a line end.
  const std::string line = "X-Long: " + std::string(60, 'v') + "\r\n";
  for (int b = 0; b < 256; ++b) {
    for (std::size_t at = 0; at < line.size(); ++at) {
      const std::string start = "GET / HTTP/1.1\r\nHost: a\r\n";
      std::string head = start + line + line;
      head[start.size() + at] = static_cast<char>(b);
      const auto fault = head_fault(head);
      const auto refusal = scan_head_bytes(head);
      ASSERT_EQ(fault.has_value(), refusal.has_value()) << "byte " << b << " at " << at;
      if (fault && fault->starts_with("control")) {
        EXPECT_NE(refusal->message.find("(byte " + std::to_string(b) + ")"), std::string::npos)
            << refusal->message;
      }
    }
  }
  // Non-ASCII bytes (obs-text) in a value pass.
  EXPECT_FALSE(scan_head_bytes("GET / HTTP/1.1\r\nX: caf\xc3\xa9 \xff\x80 and more text here\r\n\r\n"));
}

TEST(RequestParserTest, HttpOneZeroNeedsNoHost) {
  auto p = parse("GET /healthz HTTP/1.0\r\n\r\n");
  ASSERT_FALSE(p.refusal);
  EXPECT_EQ(p.request.version_minor, 0);
}

TEST(RequestParserTest, PostWithoutLengthIs411) {
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nHost: a\r\n\r\n"), 411);
}

TEST(RequestParserTest, ABodyOverTheLimitIsMarkedNotRead) {
  RequestLimits limits;
  limits.max_body_bytes = 4;
  auto p = parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", limits);
  ASSERT_FALSE(p.refusal);
  EXPECT_TRUE(p.request.body_too_large);
  EXPECT_TRUE(p.request.body.empty());
  auto c = parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n0\r\n\r\n",
                 limits);
  ASSERT_FALSE(c.refusal);
  EXPECT_TRUE(c.request.body_too_large);
}

TEST(RequestParserTest, FindsTheHeadEndAcrossReads) {
  const std::string wire = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
  EXPECT_EQ(find_head_end(wire, wire.size() - 1), wire.size());
  EXPECT_EQ(find_head_end(wire.substr(0, wire.size() - 1), 0), std::string::npos);
}

// Header names compare without regard to ASCII case (RFC 9110 5.1), and
// only ASCII case: bytes past 0x7F, and the punctuation next to the letters
// ('@' before 'A', '[' after 'Z'), stay themselves.
TEST(AsciiCase, HeaderNamesCompareWithoutAsciiCaseOnly) {
  using modelgw::util::iequals;
  using modelgw::util::istarts_with;
  static_assert(iequals("X-RateLimit-Limit-Requests", "x-ratelimit-limit-requests"));
  EXPECT_TRUE(iequals("Idempotency-Key", "IDEMPOTENCY-KEY"));
  EXPECT_FALSE(iequals("Idempotency-Key", "Idempotency-Kez"));
  EXPECT_FALSE(iequals("a", "ab"));
  EXPECT_FALSE(iequals("@", "`"));  // 0x40 and 0x60: one bit apart, not letters
  EXPECT_FALSE(iequals("[", "{"));
  EXPECT_FALSE(iequals("\xC3\x89", "\xC3\xA9"));  // É and é: not ASCII, not folded
  for (int c = 0; c < 256; ++c) {
    const char x = static_cast<char>(c);
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    for (int d = 0; d < 256; ++d) {
      const char y = static_cast<char>(d);
      const bool same = c == d || (letter && (c ^ 0x20) == d);
      ASSERT_EQ(iequals(std::string_view(&x, 1), std::string_view(&y, 1)), same) << c << " " << d;
    }
  }
  EXPECT_TRUE(istarts_with("X-RateLimit-Reset-Tokens", "x-ratelimit"));
  EXPECT_FALSE(istarts_with("x-rate", "x-ratelimit"));
}

}  // namespace
