// Strict HTTP/1.1 framing on the client side (RFC 9112 sections 2.2, 6.1,
// 6.3): one TCP payload must never be read as two requests where another
// server would see one. Every ambiguous or malformed head is refused with a
// 400 in the error envelope, Connection: close, and nothing after it on the
// connection is answered; pipelined well-formed requests are all answered,
// in order. Each payload below carries a smuggled GET /healthz after the
// malformed part: an answer to it is the smuggling.
#include "harness/checks.h"
#include "harness/raw_connection.h"
#include "harness/stack.h"

#include <vector>

namespace it {
namespace {

using namespace std::chrono_literals;

// The assistant's text of a chat answer, "" when it is not one.
std::string content_of(const HttpResponse& r) {
  try {
    return r.json().at("choices").at(0).at("message").at("content").get<std::string>();
  } catch (const json::exception&) {
    return {};
  }
}

bool is_health_ok(const HttpResponse& r) {
  const json body = r.json();
  return r.status == 200 && body.is_object() && body.value("status", "") == "ok";
}

const std::string kSmuggled = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

struct Exchange {
  std::vector<HttpResponse> answers;
  bool closed = false;  // the server closed the connection after its answers
};

class HttpFramingTest : public SharedStackTest<HttpFramingTest> {
 protected:
  // Sends `payload` in one write and collects every answer: the first within
  // 3 s, each next one within 1.5 s of the previous.
  static Exchange exchange(const std::string& payload) {
    RawConnection c(port());
    try {
      c.send(payload);
    } catch (const std::exception&) {
      // The server may answer and close before it has read everything.
    }
    Exchange x;
    while (x.answers.size() < 8) {
      auto r = c.read_response(x.answers.empty() ? 3000ms : 1500ms);
      if (!r) break;
      x.answers.push_back(std::move(*r));
    }
    x.closed = c.closed_without_more(0ms);
    return x;
  }

  // A refusal of the framing: one 400 (or `status`) envelope, Connection:
  // close, the connection closed, and nothing else answered.
  static void expect_refused(const std::string& payload, int status = 400,
                             const std::string& code = "invalid_parameter") {
    const Exchange x = exchange(payload);
    ASSERT_FALSE(x.answers.empty()) << "no answer within 3 s";
    const HttpResponse& r = x.answers.front();
    EXPECT_TRUE(IsApiError(r, status, "invalid_request_error", code));
    EXPECT_EQ(ascii_lower(r.header("connection")), "close") << "a refused framing must close the connection";
    EXPECT_EQ(x.answers.size(), 1u) << "the bytes after the refused request were answered as a request: "
                                    << (x.answers.size() > 1
                                            ? std::to_string(x.answers[1].status) + " " + x.answers[1].body
                                            : "");
    EXPECT_TRUE(x.closed) << "the connection stayed open after the refusal";
  }

  static std::string chat_head(const std::string& extra_headers) {
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key() +
           "\r\nContent-Type: application/json\r\n" + extra_headers + "\r\n";
  }

  static std::string chunked(const std::string& body) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx", body.size());
    return std::string(size) + "\r\n" + body + "\r\n";
  }
};

TEST_F(HttpFramingTest, ContentLengthWithTransferEncodingIsRefused) {
  // Chunked says the body is empty (and the GET is a second request); the
  // length says the body is "0\r\n\r\n" plus part of the GET.
  expect_refused(chat_head("Content-Length: 9\r\nTransfer-Encoding: chunked\r\n") + "0\r\n\r\n" + kSmuggled);
}

TEST_F(HttpFramingTest, TwoDifferentContentLengthsAreRefused) {
  expect_refused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nContent-Length: " +
                 std::to_string(kSmuggled.size()) + "\r\n\r\n" + kSmuggled);
}

TEST_F(HttpFramingTest, NegativeContentLengthIsRefused) {
  expect_refused(chat_head("Content-Length: -1\r\n") + kSmuggled);
}

TEST_F(HttpFramingTest, InvalidChunkSizeIsRefusedAndWhatFollowsIsNotARequest) {
  expect_refused(chat_head("Transfer-Encoding: chunked\r\n") + "zz\r\n{}\r\n0\r\n\r\n" + kSmuggled);
}

TEST_F(HttpFramingTest, ChunkedTrailerIsNotReadAsARequest) {
  // A valid chunked chat with a trailer field, then a pipelined GET: two
  // answers, the chat's and the GET's, and no third for the trailer line.
  const std::string body = chat_body("gpt-4o-mini", "trailer check");
  const Exchange x = exchange(chat_head("Transfer-Encoding: chunked\r\n") + chunked(body) +
                              "0\r\nX-Checksum: GET /healthz HTTP/1.1\r\n\r\n" + kSmuggled);
  ASSERT_GE(x.answers.size(), 2u) << "expected the chat's answer and the GET's";
  EXPECT_EQ(x.answers[0].status, 200) << x.answers[0].body;
  EXPECT_EQ(content_of(x.answers[0]), "echo: trailer check") << x.answers[0].body;
  EXPECT_TRUE(is_health_ok(x.answers[1])) << x.answers[1].status << " " << x.answers[1].body;
  EXPECT_EQ(x.answers.size(), 2u) << "the trailer was answered as a request: " << x.answers.back().status
                                  << " " << x.answers.back().body;
}

TEST_F(HttpFramingTest, PostWithoutAnyLengthIs411) {
  // Neither Content-Length nor chunked: the gateway must not read until the
  // client closes (it does not close here).
  RawConnection c(port());
  c.send(chat_head("") + chat_body("gpt-4o-mini", "no length"));
  const auto r = c.read_response(3s);
  ASSERT_TRUE(r.has_value()) << "no answer within 3 s: the gateway waits for the client to close";
  EXPECT_TRUE(IsApiError(*r, 411, "invalid_request_error", "length_required"));
}

TEST_F(HttpFramingTest, ObsFoldIsRefused) {
  expect_refused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Folded: one\r\n two\r\n\r\n" + kSmuggled);
}

TEST_F(HttpFramingTest, NulByteInAHeaderIsRefused) {
  expect_refused(std::string("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Nul: a") + '\0' + "b\r\n\r\n" +
                 kSmuggled);
}

TEST_F(HttpFramingTest, HeaderLineWithoutColonIsRefused) {
  expect_refused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-No-Colon here\r\n\r\n" + kSmuggled);
}

TEST_F(HttpFramingTest, MissingHostIsRefused) {
  expect_refused("GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n" + kSmuggled);
}

TEST_F(HttpFramingTest, DuplicateHostIsRefused) {
  expect_refused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n" + kSmuggled);
}

TEST_F(HttpFramingTest, TwoAuthorizationHeadersAreRefused) {
  const std::string body = chat_body("gpt-4o-mini", "two keys");
  expect_refused(chat_head("Authorization: Bearer sk-mgw-someone-else\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n") +
                 body + kSmuggled);
}

TEST_F(HttpFramingTest, Http2RequestLineIs505) {
  const Exchange x = exchange("GET /healthz HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_FALSE(x.answers.empty()) << "no answer within 3 s";
  EXPECT_EQ(x.answers[0].status, 505) << x.answers[0].body;
  const json body = x.answers[0].json();
  EXPECT_TRUE(body.is_object() && body.contains("error")) << "not the error envelope: " << x.answers[0].body;
  EXPECT_EQ(x.answers.size(), 1u);
}

TEST_F(HttpFramingTest, HeadOverMaxHeaderBytesIs431) {
  // max_header_bytes is 32 KiB by default: one 40 KB header passes it.
  expect_refused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(40000, 'b') +
                     "\r\n\r\n" + kSmuggled,
                 431, "request_header_fields_too_large");
  // Refusing it must not have hurt the gateway.
  HttpResponse health;
  try {
    health = http_get(port(), "/healthz");
  } catch (const std::exception& e) {
    health.body = e.what();
  }
  EXPECT_EQ(health.status, 200) << "the gateway no longer answers after a 431: " << health.body;
}

// RFC 9112 section 6.1: Transfer-Encoding in an HTTP/1.0 message is faulty
// framing; the connection closes, and the bytes after it are no request.
TEST_F(HttpFramingTest, Http10WithTransferEncodingIsRefusedAndClosed) {
  const std::string body = chat_body("gpt-4o-mini", "http 1.0 chunked");
  expect_refused("POST /v1/chat/completions HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key() +
                 "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(body) +
                 "0\r\n\r\n" + kSmuggled);
}

// RFC 9112 section 2.2: a server SHOULD ignore at least one empty line
// received before the request line (clients send one after a POST body).
TEST_F(HttpFramingTest, EmptyLinesBeforeTheRequestLineAreIgnored) {
  Exchange x = exchange("\r\n" + kSmuggled);
  ASSERT_EQ(x.answers.size(), 1u);
  EXPECT_TRUE(is_health_ok(x.answers[0])) << x.answers[0].status << " " << x.answers[0].body;
  EXPECT_FALSE(x.closed);
  const std::string body = chat_body("gpt-4o-mini", "crlf after the body");
  x = exchange(raw_request("POST", "/v1/chat/completions", body, "Bearer " + key()) + "\r\n\r\n" + kSmuggled);
  ASSERT_EQ(x.answers.size(), 2u);
  EXPECT_EQ(content_of(x.answers[0]), "echo: crlf after the body");
  EXPECT_TRUE(is_health_ok(x.answers[1])) << x.answers[1].status << " " << x.answers[1].body;
}

TEST_F(HttpFramingTest, PipelinedRequestsAreAllAnsweredInOrder) {
  const std::string first = chat_body("gpt-4o-mini", "pipelined first");
  const std::string second = chat_body("gpt-4o-mini", "pipelined second");
  const Exchange x =
      exchange(raw_request("POST", "/v1/chat/completions", first, "Bearer " + key()) + kSmuggled +
               raw_request("POST", "/v1/chat/completions", second, "Bearer " + key()));
  ASSERT_EQ(x.answers.size(), 3u);
  EXPECT_EQ(x.answers[0].status, 200) << x.answers[0].body;
  EXPECT_EQ(content_of(x.answers[0]), "echo: pipelined first");
  EXPECT_TRUE(is_health_ok(x.answers[1])) << x.answers[1].status << " " << x.answers[1].body;
  EXPECT_EQ(x.answers[2].status, 200) << x.answers[2].body;
  EXPECT_EQ(content_of(x.answers[2]), "echo: pipelined second");
  EXPECT_FALSE(x.closed) << "a keep-alive connection was closed after well-formed requests";
}

}  // namespace
}  // namespace it
