#include "auth/jwt/http_keyset_source.h"
#include "../test_http_server.h"
#include "auth/jwt/keyset_cache.h"
#include "fake_source.h"
#include "test_keys.h"

#include <Poco/Net/ServerSocket.h>
#include <gtest/gtest.h>

namespace {

using modelgw::auth::jwt::FetchedDocument;
using modelgw::auth::jwt::FetchFailure;
using modelgw::auth::jwt::HttpFetchOptions;
using modelgw::auth::jwt::HttpKeysetSource;
using modelgw::auth::jwt::KeysetCache;
using modelgw::testing::TestHttpServer;
using namespace std::chrono_literals;
namespace t = modelgw::testing::jwt;

HttpFetchOptions fetch_options(const std::string& url, std::chrono::milliseconds timeout = 2000ms) {
  HttpFetchOptions o;
  o.url = url;
  o.timeout = timeout;
  return o;
}

std::string failure_of(const std::variant<FetchedDocument, FetchFailure>& r) {
  return std::holds_alternative<FetchFailure>(r) ? std::get<FetchFailure>(r).reason : "<fetched>";
}

TEST(HttpKeysetSource, FetchesTheDocumentWithItsMaxAge) {
  const std::string body = t::jwks({t::public_jwk(t::rsa_key())});
  std::string seen_uri;
  TestHttpServer server([&](auto& request, const std::string&, auto& response, const auto&) {
    seen_uri = request.getURI();
    response.set("Cache-Control", "public, max-age=120");
    modelgw::testing::answer(response, body);
  });
  HttpKeysetSource source(fetch_options(server.base_url() + "/.well-known/jwks.json?tenant=all"));
  EXPECT_EQ(source.host(), "127.0.0.1");
  auto r = source.fetch();
  ASSERT_TRUE(std::holds_alternative<FetchedDocument>(r)) << failure_of(r);
  EXPECT_EQ(std::get<FetchedDocument>(r).body, body);
  EXPECT_EQ(std::get<FetchedDocument>(r).max_age, 120s);
  EXPECT_EQ(seen_uri, "/.well-known/jwks.json?tenant=all");
}

TEST(HttpKeysetSource, WithoutCacheControlTheLifetimeIsUnknown) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto&) {
    modelgw::testing::answer(response, "{\"keys\":[]}");
  });
  auto r = HttpKeysetSource(fetch_options(server.base_url() + "/jwks")).fetch();
  ASSERT_TRUE(std::holds_alternative<FetchedDocument>(r)) << failure_of(r);
  EXPECT_EQ(std::get<FetchedDocument>(r).max_age, std::nullopt);
}

TEST(HttpKeysetSource, ANon200AnswerIsAFailure) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto&) {
    modelgw::testing::answer(response, "{\"error\":\"down\"}", 500);
  });
  EXPECT_EQ(failure_of(HttpKeysetSource(fetch_options(server.base_url() + "/jwks")).fetch()), "HTTP 500");
}

TEST(HttpKeysetSource, AGarbageBodyFailsTheCacheFetch) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto&) {
    modelgw::testing::answer(response, "<html>sign in</html>");
  });
  auto options = t::cache_options();
  KeysetCache cache(std::make_unique<HttpKeysetSource>(fetch_options(server.base_url() + "/jwks")), options);
  EXPECT_TRUE(std::holds_alternative<modelgw::auth::jwt::KeysetUnavailable>(cache.current()));
  EXPECT_EQ(server.requests(), 1);
}

TEST(HttpKeysetSource, AnOversizedBodyIsAFailure) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto&) {
    modelgw::testing::answer(response, std::string(2 * 1024 * 1024, ' '));
  });
  EXPECT_NE(
      failure_of(HttpKeysetSource(fetch_options(server.base_url() + "/jwks")).fetch()).find("larger than"),
      std::string::npos);
}

TEST(HttpKeysetSource, ASilentServerTimesOut) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto& state) {
    if (modelgw::testing::sleep_unless_stopping(state, 3000ms)) modelgw::testing::answer(response, "{}");
  });
  const auto start = std::chrono::steady_clock::now();
  auto r = HttpKeysetSource(fetch_options(server.base_url() + "/jwks", 200ms)).fetch();
  EXPECT_EQ(failure_of(r), "no answer within 200 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2000ms);
}

TEST(HttpKeysetSource, ADribblingServerIsCutOff) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto& state) {
    modelgw::testing::dribble(response, state, 1000, 20ms);
  });
  const auto start = std::chrono::steady_clock::now();
  auto r = HttpKeysetSource(fetch_options(server.base_url() + "/jwks", 100ms)).fetch();
  EXPECT_TRUE(std::holds_alternative<FetchFailure>(r));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2000ms);
}

TEST(HttpKeysetSource, ARefusedConnectionIsAFailure) {
  std::uint16_t port = 0;
  {
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
    port = socket.address().port();
  }  // closed: nothing listens there now
  auto r = HttpKeysetSource(fetch_options("http://127.0.0.1:" + std::to_string(port) + "/jwks")).fetch();
  EXPECT_NE(failure_of(r).find("refused"), std::string::npos) << failure_of(r);
}

TEST(HttpKeysetSource, RefusesUnusableUrls) {
  EXPECT_THROW(HttpKeysetSource(fetch_options("ftp://idp.example/jwks")), std::invalid_argument);
  EXPECT_THROW(HttpKeysetSource(fetch_options("http:///jwks")), std::invalid_argument);
}

}  // namespace
