// The network around the upstream call: HTTP(S) proxies from the environment
// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), and certificate verification of HTTPS
// upstreams. tests/fake_proxy provides the proxy and a TLS front for the fake
// upstream, with throwaway certificates made per test.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <fake_proxy/proxy_process.h>
#include <fake_proxy/test_certs.h>

#include <unistd.h>

#include <filesystem>
#include <memory>

namespace it {
namespace {

using fake_proxy::FakeProxyProcess;

// A fake upstream, then whatever stands in front of it, then the gateway.
class NetworkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = std::make_unique<FakeUpstream>(kProviderKey);
    dir_ = ::testing::TempDir() + "modelgw-net-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    certs_ = fake_proxy::make_test_certs(dir_);
  }
  void TearDown() override {
    gateway_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void start_gateway(GatewayOptions options) {
    options.upstream_port = fake_->port();
    gateway_ = std::make_unique<Gateway>(std::move(options));
    gateway_->create_tenant("acme");
    key_ = gateway_->create_key("acme").key;
    gateway_->start();
  }
  HttpResponse chat(const std::string& marker) {
    return post_chat(gateway_->port(), key_, chat_body("gpt-4o-mini", marker));
  }
  std::unique_ptr<FakeProxyProcess> tls_front(const std::string& cert, const std::string& key) {
    return std::make_unique<FakeProxyProcess>(std::vector<std::string>{
        "--mode", "tls", "--forward-to", std::to_string(fake_->port()), "--cert", cert, "--key", key});
  }

  std::unique_ptr<FakeUpstream> fake_;
  std::unique_ptr<Gateway> gateway_;
  std::string key_;
  std::string dir_;
  fake_proxy::TestCerts certs_;
};

TEST_F(NetworkTest, AnHttpUpstreamGoesThroughHttpProxy) {
  FakeProxyProcess proxy({"--mode", "forward"});
  GatewayOptions o;
  o.env = {{"http_proxy", proxy.url()}, {"no_proxy", "example.invalid"}};
  start_gateway(o);
  const auto r = chat("via-proxy");
  ASSERT_EQ(r.status, 200) << r.body;
  bool seen = false;
  for (const auto& e : proxy.log()) {
    seen = seen || (e.method == "POST" &&
                    e.target == "http://127.0.0.1:" + std::to_string(fake_->port()) + "/v1/chat/completions");
  }
  EXPECT_TRUE(seen) << "the gateway did not send the call through the proxy";
}

TEST_F(NetworkTest, NoProxyLetsAHostBypassTheProxy) {
  FakeProxyProcess proxy({"--mode", "forward"});
  GatewayOptions o;
  o.env = {{"http_proxy", proxy.url()}, {"no_proxy", "localhost, 127.0.0.0/8"}};
  start_gateway(o);
  ASSERT_EQ(chat("bypass").status, 200);
  EXPECT_TRUE(proxy.log().empty());
}

TEST_F(NetworkTest, ProxyCredentialsAreSentAndNeverLogged) {
  FakeProxyProcess proxy({"--mode", "forward", "--require-auth", "gwuser:s3cr3t-Pa55"});
  GatewayOptions o;
  o.env = {{"http_proxy", "http://gwuser:s3cr3t-Pa55@127.0.0.1:" + std::to_string(proxy.port())},
           {"no_proxy", "example.invalid"}};
  start_gateway(o);
  ASSERT_EQ(chat("proxy-auth").status, 200);
  const auto log = proxy.log();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back().auth.value_or(""), "gwuser");
  EXPECT_EQ(gateway_->log().find("s3cr3t-Pa55"), std::string::npos);
}

TEST_F(NetworkTest, AnHttpsUpstreamIsVerifiedAgainstTheConfiguredCa) {
  auto front = tls_front(certs_.server_cert_pem, certs_.server_key_pem);
  GatewayOptions o;
  o.openai_base_url = "https://127.0.0.1:" + std::to_string(front->port()) + "/v1";
  o.openai_ca_file = certs_.ca_pem;
  start_gateway(o);
  const auto r = chat("over-tls");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(fake_->find_request("over-tls").is_null());
}

TEST_F(NetworkTest, AnUntrustedCertificateIsRefused) {
  auto front = tls_front(certs_.self_signed_cert_pem, certs_.self_signed_key_pem);
  GatewayOptions o;
  o.openai_base_url = "https://127.0.0.1:" + std::to_string(front->port()) + "/v1";
  o.openai_ca_file = certs_.ca_pem;
  start_gateway(o);
  const auto r = chat("bad-cert");
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed"));
  EXPECT_TRUE(fake_->find_request("bad-cert").is_null()) << "the request went to an unverified server";
}

TEST_F(NetworkTest, WithoutItsCaTheTestCertificateIsNotTrusted) {
  // The system store alone does not know the throwaway CA.
  auto front = tls_front(certs_.server_cert_pem, certs_.server_key_pem);
  GatewayOptions o;
  o.openai_base_url = "https://127.0.0.1:" + std::to_string(front->port()) + "/v1";
  start_gateway(o);
  EXPECT_TRUE(IsApiError(chat("no-ca"), 502, "api_error", "provider_failed"));
}

TEST_F(NetworkTest, AnHttpsUpstreamIsTunnelledThroughTheProxyWithConnect) {
  auto front = tls_front(certs_.server_cert_pem, certs_.server_key_pem);
  FakeProxyProcess proxy({"--mode", "forward"});
  GatewayOptions o;
  o.openai_base_url = "https://127.0.0.1:" + std::to_string(front->port()) + "/v1";
  o.openai_ca_file = certs_.ca_pem;
  o.env = {{"https_proxy", proxy.url()}, {"no_proxy", "example.invalid"}};
  start_gateway(o);
  const auto r = chat("tunnelled");
  ASSERT_EQ(r.status, 200) << r.body;
  bool tunnelled = false;
  for (const auto& e : proxy.log()) {
    tunnelled =
        tunnelled || (e.method == "CONNECT" && e.target == "127.0.0.1:" + std::to_string(front->port()));
  }
  EXPECT_TRUE(tunnelled);
}

}  // namespace
}  // namespace it
