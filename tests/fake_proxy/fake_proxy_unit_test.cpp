// Unit tests of fake_proxy's parsers and bookkeeping, without sockets.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunked_tracker.h"
#include "http_head.h"
#include "options.h"
#include "proxy_auth.h"
#include "proxy_log.h"
#include "proxy_target.h"

namespace fake_proxy {
namespace {

// Feeds `body` split at `split` and returns how many bytes were taken.
size_t feedSplit(ChunkedTracker& t, const std::string& body, size_t split) {
  const size_t first = t.feed(std::string_view(body).substr(0, split));
  if (t.done() || t.failed()) return first;
  return first + t.feed(std::string_view(body).substr(split));
}

TEST(ChunkedTrackerTest, FindsTheEndAtEverySplitPoint) {
  const std::string body = "5\r\nhello\r\n1a;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nTrailer: x\r\n\r\n";
  for (size_t split = 0; split <= body.size(); ++split) {
    ChunkedTracker t;
    EXPECT_EQ(feedSplit(t, body + "NEXT", split), body.size()) << "split at " << split;
    EXPECT_TRUE(t.done());
  }
}

TEST(ChunkedTrackerTest, AcceptsBareLineFeeds) {
  ChunkedTracker t;
  const std::string body = "3\nabc\n0\n\n";
  EXPECT_EQ(t.feed(body), body.size());
  EXPECT_TRUE(t.done());
}

TEST(ChunkedTrackerTest, RejectsBrokenFraming) {
  for (const std::string bad : {"x\r\n", "\r\n", "3\r\nabcX", "ffffffffffffffffff\r\n", "3\r\nabc\r\r"}) {
    ChunkedTracker t;
    t.feed(bad);
    EXPECT_TRUE(t.failed()) << bad;
  }
}

TEST(ChunkedTrackerTest, BoundsTrailers) {
  ChunkedTracker t;
  t.feed("0\r\n");
  t.feed(std::string(10'000, 'a'));
  EXPECT_TRUE(t.failed());
}

TEST(HttpHeadTest, ParsesAnAbsoluteFormRequest) {
  const auto head = parseRequestHead(
      "POST http://127.0.0.1:8080/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
      "Content-Length:  12 \r\nProxy-Authorization: Basic dTpw\r\n\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->method, "POST");
  EXPECT_EQ(head->target, "http://127.0.0.1:8080/v1/chat/completions");
  EXPECT_EQ(head->version, "HTTP/1.1");
  EXPECT_EQ(headerValue(head->headers, "content-length"), "12");
  const auto framing = requestFraming(*head);
  ASSERT_TRUE(framing);
  EXPECT_EQ(framing->kind, BodyFraming::Kind::Length);
  EXPECT_EQ(framing->length, 12u);
}

TEST(HttpHeadTest, RejectsMalformedRequests) {
  const std::vector<std::string> cases = {"GET\r\n\r\n",
                                          "GET / HTTP/2.0\r\n\r\n",
                                          "GET  / HTTP/1.1\r\n\r\n",
                                          "G(T / HTTP/1.1\r\n\r\n",
                                          "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
                                          "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
                                          "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
                                          std::string("GET /\0 HTTP/1.1\r\n\r\n", 19)};
  for (const auto& bad : cases) {
    EXPECT_FALSE(parseRequestHead(bad)) << bad;
  }
}

TEST(HttpHeadTest, RequestFramingRefusesSmuggling) {
  const auto both =
      parseRequestHead("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n");
  ASSERT_TRUE(both);
  EXPECT_FALSE(requestFraming(*both));
  const auto twoLengths =
      parseRequestHead("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n");
  ASSERT_TRUE(twoLengths);
  EXPECT_FALSE(requestFraming(*twoLengths));
  const auto gzipOnly = parseRequestHead("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n");
  ASSERT_TRUE(gzipOnly);
  EXPECT_FALSE(requestFraming(*gzipOnly));
  const auto chunked = parseRequestHead("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n");
  ASSERT_TRUE(chunked);
  EXPECT_EQ(requestFraming(*chunked)->kind, BodyFraming::Kind::Chunked);
}

TEST(HttpHeadTest, ResponseFramingAndKeepAlive) {
  const auto sse = parseResponseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  ASSERT_TRUE(sse);
  EXPECT_EQ(responseFraming(*sse, false)->kind, BodyFraming::Kind::Chunked);
  EXPECT_EQ(responseFraming(*sse, true)->kind, BodyFraming::Kind::None);
  EXPECT_TRUE(responseKeepAlive(*sse));

  const auto closeDelimited = parseResponseHead("HTTP/1.0 200\r\n\r\n");
  ASSERT_TRUE(closeDelimited);
  EXPECT_EQ(responseFraming(*closeDelimited, false)->kind, BodyFraming::Kind::UntilClose);
  EXPECT_FALSE(responseKeepAlive(*closeDelimited));

  const auto noContent = parseResponseHead("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(noContent);
  EXPECT_EQ(responseFraming(*noContent, false)->kind, BodyFraming::Kind::None);
  EXPECT_FALSE(responseKeepAlive(*noContent));

  EXPECT_FALSE(parseResponseHead("HTTP/1.1 2x0 OK\r\n\r\n"));
  EXPECT_FALSE(parseResponseHead("ICY 200 OK\r\n\r\n"));
}

TEST(ProxyTargetTest, ParsesAbsoluteTargets) {
  const auto t = parseAbsoluteTarget("http://127.0.0.1:8080/v1/chat?x=1#frag");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->authority.host, "127.0.0.1");
  EXPECT_EQ(t->authority.port, 8080);
  EXPECT_EQ(t->originForm, "/v1/chat?x=1");

  const auto bare = parseAbsoluteTarget("HTTP://localhost");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->authority.port, 80);
  EXPECT_EQ(bare->originForm, "/");

  const auto query = parseAbsoluteTarget("http://localhost:81?a=b");
  ASSERT_TRUE(query);
  EXPECT_EQ(query->originForm, "/?a=b");

  for (const char* bad : {"https://127.0.0.1/", "http://", "http://user@127.0.0.1/", "http://127.0.0.1:0/",
                          "http://127.0.0.1:99999/", "http://127.0.0.1:/", "ftp://127.0.0.1/", "/relative"}) {
    EXPECT_FALSE(parseAbsoluteTarget(bad)) << bad;
  }
}

TEST(ProxyTargetTest, ConnectAuthorityNeedsAPort) {
  EXPECT_FALSE(parseAuthority("127.0.0.1", 0));
  EXPECT_EQ(parseAuthority("127.0.0.1:443", 0)->port, 443);
  EXPECT_EQ(parseAuthority("[::1]:443", 0)->host, "[::1]");
  EXPECT_FALSE(parseAuthority("a:b:443", 0));
  EXPECT_FALSE(parseAuthority("host/x:443", 0));
}

TEST(ProxyTargetTest, OnlyLoopbackNamesAreAllowed) {
  EXPECT_TRUE(isAllowedOrigin({"127.0.0.1", 80}));
  EXPECT_TRUE(isAllowedOrigin({"LocalHost", 80}));
  for (const char* host :
       {"127.0.0.2", "example.com", "10.0.0.1", "[::1]", "localhost.example.com", "0.0.0.0"}) {
    EXPECT_FALSE(isAllowedOrigin({host, 80})) << host;
  }
}

TEST(ProxyAuthHeaderTest, ChecksBasicCredentials) {
  const std::optional<std::string> required = "alice:s3cret";
  const Headers good{{"Proxy-Authorization", "Basic YWxpY2U6czNjcmV0"}};
  EXPECT_TRUE(checkProxyAuth(good, required).accepted);
  EXPECT_EQ(checkProxyAuth(good, required).user, "alice");

  const Headers wrong{{"proxy-authorization", "basic YWxpY2U6d3Jvbmc="}};  // alice:wrong
  EXPECT_FALSE(checkProxyAuth(wrong, required).accepted);
  EXPECT_EQ(checkProxyAuth(wrong, required).user, "alice");

  for (const char* value : {"Bearer YWxpY2U6czNjcmV0", "Basic", "Basic !!!!", "Basic YWxpY2U="}) {
    const Headers h{{"Proxy-Authorization", value}};
    EXPECT_FALSE(checkProxyAuth(h, required).accepted) << value;
    EXPECT_FALSE(checkProxyAuth(h, required).user) << value;
  }
  EXPECT_FALSE(checkProxyAuth({}, required).accepted);
  EXPECT_TRUE(checkProxyAuth({}, std::nullopt).accepted);
}

TEST(ProxyLogTest, KeepsTheLastEntriesAsJson) {
  ProxyLog log(1000);
  for (int i = 0; i < 1005; ++i)
    log.record({"GET", "http://127.0.0.1:1/" + std::to_string(i), std::nullopt, 200});
  log.record({"CONNECT", "127.0.0.1:443", "alice", 200});
  log.record({"GET", "http://127.0.0.1:1/\xff", std::nullopt, 400});  // not UTF-8
  const auto json = nlohmann::json::parse(log.toJson());
  ASSERT_EQ(json.size(), 1000u);
  EXPECT_EQ(json[0]["target"], "http://127.0.0.1:1/7");
  EXPECT_EQ(json[998]["method"], "CONNECT");
  EXPECT_EQ(json[998]["auth"], "alice");
  EXPECT_TRUE(json[0]["auth"].is_null());
  EXPECT_EQ(json[999]["status"], 400);
  log.clear();
  EXPECT_EQ(log.toJson(), "[]");
}

std::optional<Options> parse(std::vector<const char*> args, std::string& error) {
  args.insert(args.begin(), "fake_proxy");
  return parseOptions(static_cast<int>(args.size()), args.data(), error);
}

TEST(OptionsTest, ParsesBothModes) {
  std::string error;
  const auto forward = parse({"--mode", "forward", "--port=0", "--require-auth", "u:p"}, error);
  ASSERT_TRUE(forward) << error;
  EXPECT_EQ(forward->mode, Mode::Forward);
  EXPECT_EQ(forward->requireAuth, "u:p");

  const auto tls = parse(
      {"--mode", "tls", "--forward-to", "8080", "--cert", "c.pem", "--key", "k.pem", "--idle-timeout", "5"},
      error);
  ASSERT_TRUE(tls) << error;
  EXPECT_EQ(tls->forwardTo, 8080);
  EXPECT_EQ(tls->idleTimeoutSeconds, 5);
}

TEST(OptionsTest, RejectsBadCommandLines) {
  const std::vector<std::vector<const char*>> bad = {
      {},
      {"--mode", "reverse"},
      {"--mode", "forward", "--port", "70000"},
      {"--mode", "forward", "--require-auth", "nocolon"},
      {"--mode", "tls", "--cert", "c", "--key", "k"},
      {"--mode", "tls", "--forward-to", "1"},
      {"--mode", "forward", "--cert", "c"},
      {"--mode", "forward", "--bogus", "1"},
      {"--mode"},
  };
  for (const auto& args : bad) {
    std::string error;
    EXPECT_FALSE(parse(args, error));
    EXPECT_FALSE(error.empty());
  }
}

}  // namespace
}  // namespace fake_proxy
