// Tests of the fake_proxy binary from the outside: it is started as a child
// process (FakeProxyProcess) in front of an in-test origin server, and spoken
// to with raw sockets and with the POCO clients the gateway itself uses.
#include <Poco/Net/AcceptCertificateHandler.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetSSL.h>
#include <Poco/Net/RejectCertificateHandler.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_proxy/proxy_process.h"
#include "fake_proxy/test_certs.h"
#include "test_client.h"
#include "test_origin.h"

namespace fake_proxy::test {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

// The client side of TLS, as the gateway sets it up: never ask anyone about
// a bad certificate, reject it.
class SslEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    Poco::Net::initializeSSL();
    Poco::Net::SSLManager::instance().initializeClient(
        nullptr, new Poco::Net::RejectCertificateHandler(false),
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", Poco::Net::Context::VERIFY_RELAXED, 9,
                               false));
  }
};
[[maybe_unused]] const auto* const kSslEnvironment = ::testing::AddGlobalTestEnvironment(new SslEnvironment);

std::string originUrl(int port, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(port) + path;
}

// A port with nothing listening on it (just freed).
int closedPort() {
  Poco::Net::ServerSocket s(Poco::Net::SocketAddress("127.0.0.1", 0));
  const int port = s.address().port();
  s.close();
  return port;
}

std::string base64(const std::string& in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    const auto b = [&](size_t k) { return k < in.size() ? static_cast<unsigned char>(in[k]) : 0u; };
    const unsigned v = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

// What the origin saw, from /echo's JSON answer.
json echoed(const RawResponse& r) {
  return json::parse(r.body);
}

class ForwardProxyTest : public ::testing::Test {
 protected:
  // A clean exit also means no sanitizer report in the proxy (ASan build).
  void TearDown() override { EXPECT_EQ(proxy.stop(), 0); }

  TestOrigin origin;
  FakeProxyProcess proxy{{"--mode", "forward"}};
};

TEST_F(ForwardProxyTest, RelaysAPostToTheOrigin) {
  RawClient client(proxy.port());
  const std::string body = R"({"model":"m","messages":[]})";
  client.send(request("POST", originUrl(origin.port(), "/echo"), body,
                      "Content-Type: application/json\r\nProxy-Connection: keep-alive\r\n"));
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("x-origin"), "test-origin");
  const auto seen = echoed(*response);
  EXPECT_EQ(seen["method"], "POST");
  EXPECT_EQ(seen["uri"], "/echo");  // origin-form, not the absolute URL
  EXPECT_EQ(seen["body"], body);
  EXPECT_FALSE(seen["headers"].contains("proxy-connection"));

  const auto log = proxy.log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].method, "POST");
  EXPECT_EQ(log[0].target, originUrl(origin.port(), "/echo"));
  EXPECT_FALSE(log[0].auth);
  EXPECT_EQ(log[0].status, 200);
}

TEST_F(ForwardProxyTest, RelaysTheResponseByteForByte) {
  const std::string canned =
      "HTTP/1.1 201 Created Here\r\nX-Odd:   spaced  value  \r\nx-lower: 1\r\nContent-Length: 7\r\n\r\n\x00\x01\xff\r\n\n."s;
  CannedOrigin raw(canned);
  RawClient client(proxy.port());
  client.send(
      request("POST", originUrl(raw.port(), "/p?q=1"), "hello", "Proxy-Authorization: Basic eDp5\r\n"));
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->raw, canned);

  const auto requests = raw.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].rfind("POST /p?q=1 HTTP/1.1\r\n", 0), 0u) << requests[0];
  EXPECT_EQ(requests[0].find("Proxy-Authorization"), std::string::npos) << requests[0];
  EXPECT_EQ(requests[0].substr(requests[0].size() - 5), "hello");
}

TEST_F(ForwardProxyTest, StreamsAChunkedResponseAsItArrives) {
  RawClient client(proxy.port());
  client.send(request("GET", originUrl(origin.port(), "/stream")));
  // The origin holds the rest of the stream back until we saw the first
  // event: a proxy that buffers the response would fail here.
  ASSERT_TRUE(client.readUntil("data: one", 5s)) << client.received();
  EXPECT_EQ(client.received().find("data: two"), std::string::npos);
  origin.releaseStream();
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("transfer-encoding"), "chunked");
  EXPECT_EQ(response->header("content-type"), "text/event-stream");
  EXPECT_EQ(response->body, "data: one\n\ndata: two\n\ndata: [DONE]\n\n");

  // The same client connection, and the same origin connection, go on.
  client.send(request("POST", originUrl(origin.port(), "/echo"), "again"));
  const auto next = client.readResponse();
  ASSERT_TRUE(next);
  EXPECT_EQ(echoed(*next)["body"], "again");
  EXPECT_EQ(origin.connections(), 1);
}

TEST_F(ForwardProxyTest, ServesPipelinedAndHeadRequestsOnOneConnection) {
  RawClient client(proxy.port());
  client.send(request("POST", originUrl(origin.port(), "/echo"), "first") +
              request("HEAD", originUrl(origin.port(), "/echo")) +
              request("POST", originUrl(origin.port(), "/echo"), "third"));
  const auto first = client.readResponse();
  const auto head = client.readResponse(/*headRequest=*/true);
  const auto third = client.readResponse();
  ASSERT_TRUE(first && head && third);
  EXPECT_EQ(echoed(*first)["body"], "first");
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(echoed(*third)["body"], "third");
  EXPECT_EQ(proxy.log().size(), 3u);
}

TEST_F(ForwardProxyTest, PocoClientGoesThroughTheProxy) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(origin.port()));
  session.setProxy("127.0.0.1", static_cast<Poco::UInt16>(proxy.port()));
  session.setTimeout(Poco::Timespan(10, 0));
  for (int i = 0; i < 2; ++i) {
    Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_POST, "/echo", Poco::Net::HTTPMessage::HTTP_1_1);
    const std::string body = "call " + std::to_string(i);
    req.setContentLength(static_cast<std::streamsize>(body.size()));
    session.sendRequest(req) << body;
    Poco::Net::HTTPResponse res;
    std::string text;
    Poco::StreamCopier::copyToString(session.receiveResponse(res), text);
    EXPECT_EQ(res.getStatus(), 200);
    EXPECT_EQ(json::parse(text)["body"], body);
  }
  const auto log = proxy.log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1].target, originUrl(origin.port(), "/echo"));
}

TEST_F(ForwardProxyTest, ConnectOpensATunnel) {
  RawClient client(proxy.port());
  const std::string authority = "127.0.0.1:" + std::to_string(origin.port());
  client.send("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
  ASSERT_TRUE(client.readUntil("\r\n\r\n", 5s));
  EXPECT_EQ(client.received(), "HTTP/1.1 200 Connection established\r\n\r\n");
  client.received().clear();
  // Inside the tunnel the origin is spoken to directly, twice.
  for (const std::string body : {"one", "two"}) {
    client.send(request("POST", "/echo", body));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(echoed(*response)["body"], body);
  }
  const auto log = proxy.log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].method, "CONNECT");
  EXPECT_EQ(log[0].target, authority);
  EXPECT_EQ(log[0].status, 200);
}

TEST_F(ForwardProxyTest, ATunnelEndsWhenTheOriginCloses) {
  CannedOrigin raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", /*closeAfter=*/true);
  RawClient client(proxy.port());
  client.send("CONNECT 127.0.0.1:" + std::to_string(raw.port()) + " HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(client.readUntil("\r\n\r\n", 5s));
  client.send(request("GET", "/"));
  EXPECT_TRUE(client.readToEof(5s));
  EXPECT_NE(client.received().find("\r\n\r\nok"), std::string::npos);
}

TEST_F(ForwardProxyTest, UnreachableOriginIs502) {
  const int port = closedPort();
  RawClient tunnel(proxy.port());
  tunnel.send("CONNECT 127.0.0.1:" + std::to_string(port) + " HTTP/1.1\r\n\r\n");
  const auto refused = tunnel.readResponse();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 502);

  RawClient plain(proxy.port());
  plain.send(request("GET", originUrl(port, "/x")));
  const auto response = plain.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 502);
}

TEST_F(ForwardProxyTest, NonLocalOriginsAre403) {
  const std::vector<std::string> requests = {
      request("GET", "http://example.com/"),
      request("POST", "http://10.0.0.1:8080/v1/chat/completions", "{}"),
      request("GET", "http://127.0.0.2:" + std::to_string(origin.port()) + "/echo"),
      "CONNECT api.openai.com:443 HTTP/1.1\r\nHost: api.openai.com:443\r\n\r\n",
      "CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
  };
  for (const auto& r : requests) {
    RawClient client(proxy.port());
    client.send(r);
    const auto response = client.readResponse();
    ASSERT_TRUE(response) << r;
    EXPECT_EQ(response->status, 403) << r;
  }
  const auto log = proxy.log();
  ASSERT_EQ(log.size(), requests.size());
  EXPECT_EQ(log[3].method, "CONNECT");
  EXPECT_EQ(log[3].target, "api.openai.com:443");
  EXPECT_EQ(log[3].status, 403);
}

TEST_F(ForwardProxyTest, BadInputGetsAnErrorAndTheProxyLivesOn) {
  const std::string origin80 = originUrl(origin.port(), "/echo");
  const std::vector<std::pair<std::string, int>> cases = {
      {"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"s, 400},  // TLS hello to a plain proxy
      {"GET / HTTP/1.1\r\nHost: x\r\n" + std::string(70'000, 'a') + "\r\n\r\n", 431},
      {"GET " + origin80 + " HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n", 400},
      {"POST " + origin80 + " HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST " + origin80 + " HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"GET https://127.0.0.1:1/ HTTP/1.1\r\n\r\n", 400},
      {"CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n", 400},
      {"GET /elsewhere HTTP/1.1\r\n\r\n", 404},
      {"PUT /_proxy/log HTTP/1.1\r\n\r\n", 405},
      {"GET / HTTP/1.1\r\nBad Header\r\n\r\n", 400},
      {"GET / HTTP/9.9\r\n\r\n", 400},
  };
  for (const auto& [bytes, status] : cases) {
    RawClient client(proxy.port());
    client.send(bytes);
    const auto response = client.readResponse();
    ASSERT_TRUE(response) << bytes.substr(0, 80);
    EXPECT_EQ(response->status, status) << bytes.substr(0, 80);
    EXPECT_EQ(response->header("connection"), "close");
  }
  {
    // Half a head, then the client leaves.
    RawClient client(proxy.port());
    client.send("GET " + origin80 + " HTTP/1.1\r\nHost: 127");
  }
  {
    // A body shorter than announced, then the client leaves.
    RawClient client(proxy.port());
    client.send(request("POST", origin80, "").substr(0, 40) + "Content-Length: 100\r\n\r\nshort");
  }
  RawClient client(proxy.port());
  client.send(request("POST", origin80, "still here"));
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(echoed(*response)["body"], "still here");
}

TEST_F(ForwardProxyTest, LogEndpointServesJsonAndCanBeCleared) {
  RawClient tunnel(proxy.port());
  tunnel.send("CONNECT localhost:" + std::to_string(origin.port()) + " HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(tunnel.readUntil("\r\n\r\n", 5s));
  RawClient plain(proxy.port());
  plain.send(request("POST", originUrl(origin.port(), "/echo"), "{}"));
  ASSERT_TRUE(plain.readResponse());

  RawClient reader(proxy.port());
  reader.send("GET /_proxy/log HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const auto response = reader.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("content-type"), "application/json");
  const auto expected =
      json::parse(R"([
    {"method": "CONNECT", "target": "localhost:)" +
                  std::to_string(origin.port()) +
                  R"(", "auth": null, "status": 200},
    {"method": "POST", "target": ")" +
                  originUrl(origin.port(), "/echo") + R"(", "auth": null, "status": 200}])");
  EXPECT_EQ(json::parse(response->body), expected);

  // The reader's connection is kept alive for the DELETE.
  reader.send("DELETE /_proxy/log HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const auto cleared = reader.readResponse();
  ASSERT_TRUE(cleared);
  EXPECT_EQ(cleared->status, 204);
  EXPECT_TRUE(proxy.log().empty());
}

TEST_F(ForwardProxyTest, StopsWithExitCodeZeroWithinASecond) {
  RawClient tunnel(proxy.port());
  tunnel.send("CONNECT 127.0.0.1:" + std::to_string(origin.port()) + " HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(tunnel.readUntil("\r\n\r\n", 5s));
  RawClient idle(proxy.port());
  idle.send(request("GET", originUrl(origin.port(), "/stream")));  // held open by the origin
  ASSERT_TRUE(idle.readUntil("data: one", 5s));

  const auto start = Clock::now();
  EXPECT_EQ(proxy.stop(), 0);
  EXPECT_LT(Clock::now() - start, 1500ms);
  EXPECT_TRUE(tunnel.readToEof(2s));
  EXPECT_TRUE(idle.readToEof(2s));
}

TEST(ForwardProxyProcessTest, StopsOnSigint) {
  Poco::Pipe out;
  auto handle = Poco::Process::launch(fake_proxy_binary(), {"--mode", "forward"}, nullptr, &out, nullptr);
  std::string line;
  const auto deadline = Clock::now() + 10s;
  while (line.size() < 100 && Clock::now() < deadline) {
    pollfd pfd{out.readHandle(), POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char c = 0;
    if (::read(out.readHandle(), &c, 1) != 1 || c == '\n') break;
    line += c;
  }
  EXPECT_EQ(line.rfind("LISTENING ", 0), 0u) << line;
  ::kill(handle.id(), SIGINT);
  int code = -1;
  for (int i = 0; i < 300 && (code = handle.tryWait()) == -1; ++i) std::this_thread::sleep_for(10ms);
  if (code == -1) {
    Poco::Process::kill(handle);
    handle.wait();
  }
  EXPECT_EQ(code, 0);
}

TEST(ForwardProxyProcessTest, RefusesBadCommandLines) {
  EXPECT_THROW(FakeProxyProcess({"--mode", "nonsense"}), std::runtime_error);
  EXPECT_THROW(FakeProxyProcess({"--mode", "tls", "--forward-to", "1"}), std::runtime_error);
}

TEST(ForwardProxyLimitsTest, ConnectionsBeyondTheCapAreClosed) {
  FakeProxyProcess proxy({"--mode", "forward", "--max-connections", "2"});
  auto first = std::make_unique<RawClient>(proxy.port());
  RawClient second(proxy.port());
  // Both are being served once the proxy answers on them.
  for (RawClient* c : {first.get(), &second}) {
    c->send("GET /_proxy/log HTTP/1.1\r\n\r\n");
    ASSERT_TRUE(c->readResponse());
  }
  RawClient third(proxy.port());
  EXPECT_TRUE(third.readToEof(5s));

  first.reset();  // frees a slot once the proxy notices
  bool served = false;
  for (int attempt = 0; attempt < 50 && !served; ++attempt) {
    RawClient again(proxy.port());
    again.send("GET /_proxy/log HTTP/1.1\r\n\r\n");
    served = again.readResponse(false, 1s).has_value();
    if (!served) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(served);
  EXPECT_EQ(proxy.stop(), 0);
}

TEST(ForwardProxyLimitsTest, IdleTunnelsAreClosed) {
  TestOrigin origin;
  FakeProxyProcess proxy({"--mode", "forward", "--idle-timeout", "1"});
  RawClient tunnel(proxy.port());
  tunnel.send("CONNECT 127.0.0.1:" + std::to_string(origin.port()) + " HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(tunnel.readUntil("\r\n\r\n", 5s));
  const auto start = Clock::now();
  EXPECT_TRUE(tunnel.readToEof(10s));
  EXPECT_GE(Clock::now() - start, 900ms);
  EXPECT_EQ(proxy.stop(), 0);
}

class ProxyAuthTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(proxy.stop(), 0); }

  TestOrigin origin;
  FakeProxyProcess proxy{{"--mode", "forward", "--require-auth", "alice:s3cret"}};
  const std::string good = "Proxy-Authorization: Basic " + base64("alice:s3cret") + "\r\n";
  const std::string wrong = "Proxy-Authorization: Basic " + base64("alice:nope") + "\r\n";
};

TEST_F(ProxyAuthTest, AnswersWith407UnlessTheCredentialsMatch) {
  const std::string url = originUrl(origin.port(), "/echo");
  const std::string authority = "127.0.0.1:" + std::to_string(origin.port());
  for (const auto& r : {request("POST", url, "x"), request("POST", url, "x", wrong),
                        "CONNECT " + authority + " HTTP/1.1\r\n\r\n"}) {
    RawClient client(proxy.port());
    client.send(r);
    const auto response = client.readResponse();
    ASSERT_TRUE(response) << r;
    EXPECT_EQ(response->status, 407) << r;
    EXPECT_EQ(response->header("proxy-authenticate"), "Basic realm=\"fake_proxy\"");
  }

  RawClient client(proxy.port());
  client.send(request("POST", url, "x", good));
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_FALSE(echoed(*response)["headers"].contains("proxy-authorization"));

  RawClient tunnel(proxy.port());
  tunnel.send("CONNECT " + authority + " HTTP/1.1\r\n" + good + "\r\n");
  ASSERT_TRUE(tunnel.readUntil("\r\n\r\n", 5s));
  EXPECT_EQ(tunnel.received().rfind("HTTP/1.1 200", 0), 0u);

  const auto log = proxy.log();
  ASSERT_EQ(log.size(), 5u);
  EXPECT_FALSE(log[0].auth);
  EXPECT_EQ(log[1].auth, "alice");  // wrong password: named, still refused
  EXPECT_EQ(log[1].status, 407);
  EXPECT_EQ(log[3].auth, "alice");
  EXPECT_EQ(log[3].status, 200);
  EXPECT_EQ(log[4].method, "CONNECT");
  EXPECT_EQ(log[4].status, 200);
}

TEST_F(ProxyAuthTest, PocoClientSendsProxyCredentials) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(origin.port()));
  session.setProxy("127.0.0.1", static_cast<Poco::UInt16>(proxy.port()));
  session.setProxyCredentials("alice", "s3cret");
  session.setTimeout(Poco::Timespan(10, 0));
  Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_GET, "/echo", Poco::Net::HTTPMessage::HTTP_1_1);
  session.sendRequest(req);
  Poco::Net::HTTPResponse res;
  std::string text;
  Poco::StreamCopier::copyToString(session.receiveResponse(res), text);
  EXPECT_EQ(res.getStatus(), 200);
  const auto log = proxy.log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].auth, "alice");
}

// TLS mode, with certificates made for the test.
class TlsFrontTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("fake_proxy_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    certs = make_test_certs(dir.string());
    tls = std::make_unique<FakeProxyProcess>(
        std::vector<std::string>{"--mode", "tls", "--forward-to", std::to_string(origin.port()), "--cert",
                                 certs.server_cert_pem, "--key", certs.server_key_pem});
  }
  void TearDown() override {
    EXPECT_EQ(tls->stop(), 0);
    tls.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  // A client context that trusts only `caFile` (none at all when empty) and
  // checks the host name too (VERIFY_STRICT makes POCO check it for
  // 127.0.0.1, which it skips for loopback otherwise).
  static Poco::Net::Context::Ptr clientContext(const std::string& caFile) {
    return new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", caFile,
                                  Poco::Net::Context::VERIFY_STRICT, 9, /*loadDefaultCAs=*/false);
  }

  static std::string get(Poco::Net::HTTPSClientSession& session, const std::string& path, int& status) {
    session.setTimeout(Poco::Timespan(10, 0));
    Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_GET, path, Poco::Net::HTTPMessage::HTTP_1_1);
    session.sendRequest(req);
    Poco::Net::HTTPResponse res;
    std::string text;
    Poco::StreamCopier::copyToString(session.receiveResponse(res), text);
    status = res.getStatus();
    return text;
  }

  std::filesystem::path dir;
  TestCerts certs;
  TestOrigin origin;
  std::unique_ptr<FakeProxyProcess> tls;
};

TEST_F(TlsFrontTest, CertificatesAreWrittenAsPem) {
  for (const auto& path : {certs.ca_pem, certs.server_cert_pem, certs.self_signed_cert_pem}) {
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, "-----BEGIN CERTIFICATE-----") << path;
  }
  for (const auto& path : {certs.ca_key_pem, certs.server_key_pem, certs.self_signed_key_pem}) {
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, "-----BEGIN PRIVATE KEY-----") << path;
  }
}

TEST_F(TlsFrontTest, ClientTrustingTheCaReachesTheOrigin) {
  Poco::Net::HTTPSClientSession session("127.0.0.1", static_cast<Poco::UInt16>(tls->port()),
                                        clientContext(certs.ca_pem));
  int status = 0;
  const auto text = get(session, "/echo", status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(json::parse(text)["uri"], "/echo");

  // A stream over the same TLS connection.
  origin.releaseStream();
  EXPECT_EQ(get(session, "/stream", status), "data: one\n\ndata: two\n\ndata: [DONE]\n\n");
  EXPECT_EQ(status, 200);
}

TEST_F(TlsFrontTest, ClientNotTrustingTheCaFailsVerification) {
  Poco::Net::HTTPSClientSession session("127.0.0.1", static_cast<Poco::UInt16>(tls->port()),
                                        clientContext(""));
  int status = 0;
  try {
    get(session, "/echo", status);
    FAIL() << "the handshake should have failed";
  } catch (const Poco::Exception& e) {
    EXPECT_NE(e.displayText().find("certificate verify failed"), std::string::npos) << e.displayText();
  }
}

TEST_F(TlsFrontTest, SelfSignedServerCertificateIsRejected) {
  FakeProxyProcess rogue({"--mode", "tls", "--forward-to", std::to_string(origin.port()), "--cert",
                          certs.self_signed_cert_pem, "--key", certs.self_signed_key_pem});
  Poco::Net::HTTPSClientSession session("127.0.0.1", static_cast<Poco::UInt16>(rogue.port()),
                                        clientContext(certs.ca_pem));
  int status = 0;
  try {
    get(session, "/echo", status);
    FAIL() << "the handshake should have failed";
  } catch (const Poco::Exception& e) {
    EXPECT_NE(e.displayText().find("certificate verify failed"), std::string::npos) << e.displayText();
  }
  EXPECT_EQ(rogue.stop(), 0);
}

TEST_F(TlsFrontTest, HttpsThroughTheForwardProxyTunnel) {
  // The gateway's path with HTTPS_PROXY set: CONNECT, then TLS end to end.
  FakeProxyProcess forward({"--mode", "forward"});
  Poco::Net::HTTPSClientSession session("127.0.0.1", static_cast<Poco::UInt16>(tls->port()),
                                        clientContext(certs.ca_pem));
  session.setProxy("127.0.0.1", static_cast<Poco::UInt16>(forward.port()));
  int status = 0;
  const auto text = get(session, "/echo", status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(json::parse(text)["uri"], "/echo");
  const auto log = forward.log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].method, "CONNECT");
  EXPECT_EQ(log[0].target, "127.0.0.1:" + std::to_string(tls->port()));
  EXPECT_EQ(forward.stop(), 0);
}

TEST_F(TlsFrontTest, PlainClientsAndBrokenHandshakesDoNotHurtIt) {
  {
    RawClient plain(tls->port());
    plain.send(request("GET", "/echo"));
    EXPECT_TRUE(plain.readToEof(5s));
  }
  {
    RawClient silent(tls->port());  // connects and says nothing
  }
  Poco::Net::HTTPSClientSession session("127.0.0.1", static_cast<Poco::UInt16>(tls->port()),
                                        clientContext(certs.ca_pem));
  int status = 0;
  get(session, "/echo", status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(tls->stop(), 0);
}

TEST_F(TlsFrontTest, RefusesToStartWithABadCertificate) {
  EXPECT_THROW(FakeProxyProcess({"--mode", "tls", "--forward-to", "1", "--cert",
                                 (dir / "missing.pem").string(), "--key", certs.server_key_pem}),
               std::runtime_error);
  // A key that does not belong to the certificate.
  EXPECT_THROW(FakeProxyProcess({"--mode", "tls", "--forward-to", "1", "--cert", certs.server_cert_pem,
                                 "--key", certs.self_signed_key_pem}),
               std::runtime_error);
}

}  // namespace
}  // namespace fake_proxy::test
