// HTTP proxy settings from the environment: the proxy URL, NO_PROXY matching
// and which upstream uses which proxy.
#include "upstream/proxy.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using modelgw::upstream::no_proxy_matches;
using modelgw::upstream::parse_proxy_url;
using modelgw::upstream::proxy_for;
using modelgw::upstream::ProxyEnvironment;
using modelgw::upstream::ProxySettings;
using modelgw::upstream::UpstreamUrl;

std::string proxy_parse_error(const std::string& url) {
  try {
    parse_proxy_url(url);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no error>";
}

// --- parse_proxy_url -------------------------------------------------------------

TEST(ProxyUrl, HostAndPort) {
  const ProxySettings p = parse_proxy_url("http://proxy.corp:3128");
  EXPECT_EQ(p.host, "proxy.corp");
  EXPECT_EQ(p.port, 3128);
  EXPECT_EQ(p.username, "");
  EXPECT_EQ(p.password, "");
}

TEST(ProxyUrl, SchemeIsOptionalAndCaseInsensitive) {
  const ProxySettings bare = parse_proxy_url("proxy.corp:8080");
  EXPECT_EQ(bare.host, "proxy.corp");
  EXPECT_EQ(bare.port, 8080);
  EXPECT_EQ(parse_proxy_url("HTTP://proxy.corp:8080").host, "proxy.corp");
  EXPECT_EQ(parse_proxy_url("  http://proxy.corp:8080/  ").port, 8080);
}

TEST(ProxyUrl, DefaultPortIs1080) {
  EXPECT_EQ(parse_proxy_url("http://proxy.corp").port, 1080);
  EXPECT_EQ(parse_proxy_url("proxy.corp").port, 1080);
  EXPECT_EQ(parse_proxy_url("http://proxy.corp/").port, 1080);
  EXPECT_EQ(parse_proxy_url("http://u:p@proxy.corp").port, 1080);
}

TEST(ProxyUrl, OnlyHttpProxiesAreSupported) {
  for (const char* url : {"https://proxy:3128", "socks5://proxy:1080", "socks5h://proxy", "ftp://proxy"}) {
    EXPECT_THROW(parse_proxy_url(url), std::invalid_argument) << url;
  }
  EXPECT_NE(proxy_parse_error("socks5://proxy:1080").find("socks5"), std::string::npos);
  EXPECT_THROW(parse_proxy_url("://proxy:3128"), std::invalid_argument);
}

TEST(ProxyUrl, CredentialsArePercentDecoded) {
  const ProxySettings p = parse_proxy_url("http://al%40ice:p%3Ass%40w%2Frd%25@proxy:3128");
  EXPECT_EQ(p.username, "al@ice");
  EXPECT_EQ(p.password, "p:ss@w/rd%");
  EXPECT_EQ(p.host, "proxy");
  EXPECT_EQ(p.port, 3128);

  const ProxySettings user_only = parse_proxy_url("http://bob@proxy:3128");
  EXPECT_EQ(user_only.username, "bob");
  EXPECT_EQ(user_only.password, "");

  const ProxySettings no_scheme = parse_proxy_url("bob:secret@proxy");
  EXPECT_EQ(no_scheme.username, "bob");
  EXPECT_EQ(no_scheme.password, "secret");
  EXPECT_EQ(no_scheme.host, "proxy");
  EXPECT_EQ(no_scheme.port, 1080);

  // An unencoded '@' in the password: the last '@' ends the user info.
  const ProxySettings at = parse_proxy_url("http://bob:se@cret@proxy:3128");
  EXPECT_EQ(at.password, "se@cret");
  EXPECT_EQ(at.host, "proxy");
}

TEST(ProxyUrl, Ipv6Literal) {
  const ProxySettings p = parse_proxy_url("http://[::1]:3128");
  EXPECT_EQ(p.host, "::1");
  EXPECT_EQ(p.port, 3128);
  const ProxySettings q = parse_proxy_url("http://user:pw@[2001:db8::7]");
  EXPECT_EQ(q.host, "2001:db8::7");
  EXPECT_EQ(q.port, 1080);
  EXPECT_EQ(q.password, "pw");
  EXPECT_THROW(parse_proxy_url("http://[::1:3128"), std::invalid_argument);
  EXPECT_THROW(parse_proxy_url("http://[::1]3128"), std::invalid_argument);
}

TEST(ProxyUrl, BadPortsAreRefused) {
  for (const char* url :
       {"http://proxy:0", "http://proxy:65536", "http://proxy:99999", "http://proxy:-1", "http://proxy:http",
        "http://proxy:31 28", "http://proxy:3128x", "http://[::1]:0", "http://[::1]:abc"}) {
    EXPECT_THROW(parse_proxy_url(url), std::invalid_argument) << url;
  }
  EXPECT_EQ(parse_proxy_url("http://proxy:65535").port, 65535);
  EXPECT_EQ(parse_proxy_url("http://proxy:1").port, 1);
}

TEST(ProxyUrl, MissingHostIsRefused) {
  for (const char* url :
       {"", "   ", "http://", "http://:3128", "http://user:pw@", "http://user:pw@:3128", "http://[]:3128"}) {
    EXPECT_THROW(parse_proxy_url(url), std::invalid_argument) << "'" << url << "'";
  }
}

TEST(ProxyUrl, ErrorsNeverContainThePassword) {
  const std::string secret = "Sup3rSecretPw";
  for (const std::string& url : {
           "socks5://alice:" + secret + "@proxy:1080",
           "https://alice:" + secret + "@proxy:3128",
           "http://alice:" + secret + "@proxy:0",
           "http://alice:" + secret + "@proxy:notaport",
           "http://alice:" + secret + "@",
           "http://alice:" + secret + "@[::1",
           "http://alice:" + secret + "@[::1]x",
           "alice:" + secret + "@proxy:70000",
           // Unencoded "://" inside a password of a URL without a scheme.
           "alice:" + secret + "://x@proxy:0",
       }) {
    const std::string error = proxy_parse_error(url);
    EXPECT_NE(error, "<no error>") << url;
    std::string lowered = error;
    for (auto& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(lowered.find("sup3rsecret"), std::string::npos) << error;
  }
}

// --- no_proxy_matches -------------------------------------------------------------

TEST(NoProxy, EmptyMatchesNothing) {
  EXPECT_FALSE(no_proxy_matches("", "api.openai.com", 443));
  EXPECT_FALSE(no_proxy_matches(" , ,", "api.openai.com", 443));
}

TEST(NoProxy, StarMatchesEverything) {
  EXPECT_TRUE(no_proxy_matches("*", "api.openai.com", 443));
  EXPECT_TRUE(no_proxy_matches("localhost, *", "10.1.2.3", 80));
  EXPECT_TRUE(no_proxy_matches(" * ", "::1", 80));
}

TEST(NoProxy, ExactHost) {
  EXPECT_TRUE(no_proxy_matches("localhost", "localhost", 8080));
  EXPECT_TRUE(no_proxy_matches("api.openai.com", "api.openai.com", 443));
  EXPECT_FALSE(no_proxy_matches("api.openai.com", "openai.com", 443));
  EXPECT_FALSE(no_proxy_matches("localhost", "localhost2", 80));
}

TEST(NoProxy, DomainsMatchTheirSubdomains) {
  for (const char* entry : {"example.com", ".example.com"}) {
    EXPECT_TRUE(no_proxy_matches(entry, "example.com", 443)) << entry;
    EXPECT_TRUE(no_proxy_matches(entry, "api.example.com", 443)) << entry;
    EXPECT_TRUE(no_proxy_matches(entry, "a.b.example.com", 443)) << entry;
    EXPECT_FALSE(no_proxy_matches(entry, "badexample.com", 443)) << entry;
    EXPECT_FALSE(no_proxy_matches(entry, "example.com.evil.net", 443)) << entry;
    EXPECT_FALSE(no_proxy_matches(entry, "example.co", 443)) << entry;
    EXPECT_FALSE(no_proxy_matches(entry, "com", 443)) << entry;
  }
}

TEST(NoProxy, HostWithPortMatchesOnlyThatPort) {
  EXPECT_TRUE(no_proxy_matches("internal.corp:8443", "internal.corp", 8443));
  EXPECT_FALSE(no_proxy_matches("internal.corp:8443", "internal.corp", 443));
  EXPECT_TRUE(no_proxy_matches(".corp:8443", "api.internal.corp", 8443));
  EXPECT_FALSE(no_proxy_matches(".corp:8443", "api.internal.corp", 80));
}

TEST(NoProxy, Ipv4LiteralsAndCidr) {
  EXPECT_TRUE(no_proxy_matches("127.0.0.1", "127.0.0.1", 80));
  EXPECT_FALSE(no_proxy_matches("127.0.0.1", "127.0.0.2", 80));
  EXPECT_TRUE(no_proxy_matches("10.0.0.0/8", "10.0.0.1", 443));
  EXPECT_TRUE(no_proxy_matches("10.0.0.0/8", "10.255.255.255", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/8", "11.0.0.1", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/8", "9.255.255.255", 443));
  EXPECT_TRUE(no_proxy_matches("192.168.1.0/24", "192.168.1.77", 80));
  EXPECT_FALSE(no_proxy_matches("192.168.1.0/24", "192.168.2.77", 80));
  EXPECT_TRUE(no_proxy_matches("172.16.0.0/12", "172.31.0.1", 80));
  EXPECT_FALSE(no_proxy_matches("172.16.0.0/12", "172.32.0.1", 80));
  EXPECT_TRUE(no_proxy_matches("192.168.1.5/32", "192.168.1.5", 80));
  EXPECT_FALSE(no_proxy_matches("192.168.1.5/32", "192.168.1.6", 80));
  EXPECT_TRUE(no_proxy_matches("0.0.0.0/0", "8.8.8.8", 80));
  // A CIDR entry never matches a name, and broken ones match nothing.
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/8", "ten.example.com", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/33", "10.0.0.1", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/x", "10.0.0.1", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0/8", "10.0.0.1", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/", "10.0.0.1", 443));
}

TEST(NoProxy, Ipv6Literals) {
  EXPECT_TRUE(no_proxy_matches("[::1]", "::1", 8080));
  EXPECT_TRUE(no_proxy_matches("::1", "::1", 8080));
  EXPECT_FALSE(no_proxy_matches("[::1]", "::2", 8080));
  EXPECT_TRUE(no_proxy_matches("[::1]:8080", "::1", 8080));
  EXPECT_FALSE(no_proxy_matches("[::1]:8080", "::1", 9090));
  EXPECT_TRUE(no_proxy_matches("[2001:DB8::1]", "2001:db8::1", 443));
  EXPECT_FALSE(no_proxy_matches("[::1", "::1", 8080));
}

TEST(NoProxy, CaseInsensitiveAndWhitespaceTolerant) {
  EXPECT_TRUE(no_proxy_matches("API.Example.COM", "api.example.com", 443));
  EXPECT_TRUE(no_proxy_matches("example.com", "API.EXAMPLE.COM", 443));
  EXPECT_TRUE(no_proxy_matches("  localhost ,\t.Example.com  ", "www.example.com", 443));
  EXPECT_TRUE(no_proxy_matches("foo.bar,\n 10.0.0.0/8 ,", "10.2.3.4", 443));
  EXPECT_TRUE(no_proxy_matches("a.test,b.test,c.test", "b.test", 443));
  EXPECT_FALSE(no_proxy_matches("a.test,b.test,c.test", "d.test", 443));
}

// --- proxy_for --------------------------------------------------------------------

UpstreamUrl url(bool https, const std::string& host, std::uint16_t port) {
  UpstreamUrl u;
  u.https = https;
  u.host = host;
  u.port = port;
  u.base_path = "/v1";
  return u;
}

TEST(ProxyFor, EachSchemeUsesItsOwnVariable) {
  ProxyEnvironment env;
  env.https_proxy = "http://secure-proxy:3128";
  env.http_proxy = "http://plain-proxy:8080";
  const auto https = proxy_for(url(true, "api.openai.com", 443), env);
  ASSERT_TRUE(https.has_value());
  EXPECT_EQ(https->host, "secure-proxy");
  EXPECT_EQ(https->port, 3128);
  const auto http = proxy_for(url(false, "api.local", 80), env);
  ASSERT_TRUE(http.has_value());
  EXPECT_EQ(http->host, "plain-proxy");
  EXPECT_EQ(http->port, 8080);
}

TEST(ProxyFor, NoVariableMeansNoProxy) {
  ProxyEnvironment env;
  EXPECT_FALSE(proxy_for(url(true, "api.openai.com", 443), env).has_value());
  env.http_proxy = "http://plain-proxy:8080";
  EXPECT_FALSE(proxy_for(url(true, "api.openai.com", 443), env).has_value());
  ProxyEnvironment only_https;
  only_https.https_proxy = "http://secure-proxy:3128";
  EXPECT_FALSE(proxy_for(url(false, "api.local", 80), only_https).has_value());
}

TEST(ProxyFor, NoProxyExempts) {
  ProxyEnvironment env;
  env.https_proxy = "http://u:p@secure-proxy:3128";
  env.http_proxy = "http://plain-proxy:8080";
  env.no_proxy = "localhost,.internal,10.0.0.0/8,vault.corp:8200";
  EXPECT_FALSE(proxy_for(url(true, "llm.internal", 443), env).has_value());
  EXPECT_FALSE(proxy_for(url(false, "localhost", 11434), env).has_value());
  EXPECT_FALSE(proxy_for(url(false, "10.1.2.3", 8000), env).has_value());
  EXPECT_FALSE(proxy_for(url(true, "vault.corp", 8200), env).has_value());
  const auto other_port = proxy_for(url(true, "vault.corp", 443), env);
  ASSERT_TRUE(other_port.has_value());
  EXPECT_EQ(other_port->username, "u");
  EXPECT_EQ(other_port->password, "p");
  EXPECT_TRUE(proxy_for(url(true, "api.openai.com", 443), env).has_value());
  env.no_proxy = "*";
  EXPECT_FALSE(proxy_for(url(true, "api.openai.com", 443), env).has_value());
}

TEST(ProxyFor, ABrokenProxyUrlIsReportedOnlyWhenUsed) {
  ProxyEnvironment env;
  env.https_proxy = "socks5://proxy:1080";
  env.no_proxy = "localhost";
  EXPECT_FALSE(proxy_for(url(true, "localhost", 443), env).has_value());
  EXPECT_THROW(proxy_for(url(true, "api.openai.com", 443), env), std::invalid_argument);
}

// --- ProxyEnvironment::from_process -------------------------------------------------

// Saves and restores the proxy variables around a test.
class ProxyEnv : public ::testing::Test {
 protected:
  static constexpr const char* kNames[] = {"https_proxy", "HTTPS_PROXY", "http_proxy",
                                           "HTTP_PROXY",  "no_proxy",    "NO_PROXY"};
  void SetUp() override {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(ProxyEnv, ReadsUpperCaseNames) {
  ::setenv("HTTPS_PROXY", "http://upper-s:1", 1);
  ::setenv("HTTP_PROXY", "http://upper:2", 1);
  ::setenv("NO_PROXY", "localhost", 1);
  const auto env = ProxyEnvironment::from_process();
  EXPECT_EQ(env.https_proxy, "http://upper-s:1");
  EXPECT_EQ(env.http_proxy, "http://upper:2");
  EXPECT_EQ(env.no_proxy, "localhost");
}

TEST_F(ProxyEnv, LowerCaseNamesWin) {
  ::setenv("HTTPS_PROXY", "http://upper-s:1", 1);
  ::setenv("https_proxy", "http://lower-s:1", 1);
  ::setenv("HTTP_PROXY", "http://upper:2", 1);
  ::setenv("http_proxy", "", 1);  // empty counts as unset
  ::setenv("no_proxy", ".internal", 1);
  ::setenv("NO_PROXY", "localhost", 1);
  const auto env = ProxyEnvironment::from_process();
  EXPECT_EQ(env.https_proxy, "http://lower-s:1");
  EXPECT_EQ(env.http_proxy, "http://upper:2");
  EXPECT_EQ(env.no_proxy, ".internal");
}

TEST_F(ProxyEnv, NothingSet) {
  const auto env = ProxyEnvironment::from_process();
  EXPECT_EQ(env.https_proxy, "");
  EXPECT_EQ(env.http_proxy, "");
  EXPECT_EQ(env.no_proxy, "");
}

}  // namespace
