#include "forward_proxy.h"

#include <Poco/Exception.h>

#include <chrono>
#include <memory>

#include "body_relay.h"
#include "buffered_socket.h"
#include "http_head.h"
#include "proxy_auth.h"
#include "proxy_target.h"
#include "tunnel_relay.h"

namespace fake_proxy {
namespace {

using namespace std::chrono_literals;

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr int kMaxRequestsPerConnection = 100'000;
constexpr auto kConnectTimeout = 5s;
// After an error answer, read (and drop) what the client still sends for this
// long before closing: closing with unread input makes the kernel send a
// reset that can destroy the answer before the client reads it.
constexpr auto kLingerTime = 1s;
constexpr size_t kLingerBytes = 1 << 20;
constexpr const char* kLogPath = "/_proxy/log";

// A kept-alive connection to the origin of the previous request.
struct Upstream {
  Upstream(Poco::Net::StreamSocket s, Runtime& rt, std::string k)
      : conn(std::move(s), rt, Transport::Plain), key(std::move(k)) {}
  BufferedSocket conn;
  std::string key;  // "host:port"
};

std::string reasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 407:
      return "Proxy Authentication Required";
    case 431:
      return "Request Header Fields Too Large";
    case 502:
      return "Bad Gateway";
    case 504:
      return "Gateway Timeout";
    default:
      return "Error";
  }
}

// Drops the headers that are addressed to the proxy itself.
bool isProxyHeader(const Header& h) {
  return iequals(h.name, "proxy-authorization") || iequals(h.name, "proxy-connection") ||
         iequals(h.name, "expect");
}

class Session {
 public:
  Session(Poco::Net::StreamSocket socket, Runtime& runtime, ProxyLog& log, const ForwardConfig& config)
      : runtime_(runtime),
        log_(log),
        config_(config),
        client_(std::move(socket), runtime, Transport::Plain) {}

  void run() {
    for (int i = 0; i < kMaxRequestsPerConnection; ++i) {
      if (!serveOne()) return;
    }
  }

 private:
  // One request; true if the connection stays open for another.
  bool serveOne() {
    const auto read = readHead(client_, runtime_.idleTimeout, kMaxHeadBytes, /*skipLeadingBlankLines=*/true);
    using Status = HeadResult::Status;
    if (read.status == Status::TooLarge) return fail(431, "request head too large");
    if (read.status == Status::Truncated) return fail(400, "incomplete request head");
    if (read.status != Status::Ok) return false;
    const auto head = parseRequestHead(read.raw);
    if (!head) return fail(400, "malformed request head");
    if (head->method == "CONNECT") return serveConnect(*head);
    const auto framing = requestFraming(*head);
    if (!framing) return fail(400, "bad Content-Length / Transfer-Encoding");
    if (!head->target.empty() && head->target.front() == '/') return serveLocal(*head, *framing);
    return serveAbsolute(*head, *framing);
  }

  // Origin-form requests are for the proxy itself.
  bool serveLocal(const RequestHead& head, const BodyFraming& framing) {
    if (framing.kind != BodyFraming::Kind::None) return fail(400, "no body expected");
    const auto path = head.target.substr(0, head.target.find('?'));
    if (path != kLogPath) return fail(404, "this is a proxy: use absolute-form or CONNECT");
    if (head.method == "GET") return respond(200, log_.toJson(), "application/json", requestKeepAlive(head));
    if (head.method == "DELETE") {
      log_.clear();
      return respond(204, "", "", requestKeepAlive(head));
    }
    return fail(405, "GET or DELETE only", "Allow: GET, DELETE\r\n");
  }

  bool serveConnect(const RequestHead& head) {
    const auto auth = checkProxyAuth(head.headers, config_.requiredCredentials);
    const auto authority = parseAuthority(head.target, 0);
    const auto refuse = [&](int status, const std::string& why, const std::string& extra = {}) {
      log_.record({head.method, head.target, auth.user, status});
      return fail(status, why, extra);
    };
    if (!authority) return refuse(400, "CONNECT needs host:port");
    if (!auth.accepted) return refuse(407, "proxy authentication required", challengeHeader());
    if (!isAllowedOrigin(*authority)) return refuse(403, "only 127.0.0.1 and localhost may be reached");
    std::unique_ptr<BufferedSocket> origin;
    try {
      origin = std::make_unique<BufferedSocket>(connectLoopback(authority->port, kConnectTimeout), runtime_,
                                                Transport::Plain);
    } catch (const Poco::Exception& e) {
      return refuse(502, "cannot connect to origin: " + e.displayText());
    }
    log_.record({head.method, head.target, auth.user, 200});
    if (!send("HTTP/1.1 200 Connection established\r\n\r\n")) return false;
    relayTunnel(client_, *origin, runtime_.idleTimeout);
    return false;
  }

  bool serveAbsolute(const RequestHead& head, const BodyFraming& framing) {
    const auto auth = checkProxyAuth(head.headers, config_.requiredCredentials);
    const auto target = parseAbsoluteTarget(head.target);
    const auto refuse = [&](int status, const std::string& why, const std::string& extra = {}) {
      log_.record({head.method, head.target, auth.user, status});
      return fail(status, why, extra);
    };
    if (!target) return refuse(400, "only http:// absolute-form targets are proxied");
    if (!auth.accepted) return refuse(407, "proxy authentication required", challengeHeader());
    if (!isAllowedOrigin(target->authority))
      return refuse(403, "only 127.0.0.1 and localhost may be reached");

    Upstream* upstream = nullptr;
    try {
      upstream = &upstreamFor(target->authority);
    } catch (const Poco::Exception& e) {
      return refuse(502, "cannot connect to origin: " + e.displayText());
    }
    // The proxy answers "100 Continue" itself instead of forwarding Expect:
    // the body is sent to the origin right after the head either way.
    if (headerHasToken(head.headers, "expect", "100-continue") && framing.kind != BodyFraming::Kind::None &&
        !send("HTTP/1.1 100 Continue\r\n\r\n")) {
      return false;
    }
    try {
      upstream->conn.writeAll(originRequestHead(head, *target));
    } catch (const Poco::Exception&) {
      upstream_.reset();
      return refuse(502, "origin closed the connection");
    }
    switch (relayBody(client_, upstream->conn, framing, runtime_.idleTimeout, false)) {
      case RelayResult::Complete:
        break;
      case RelayResult::SinkFailed:
        upstream_.reset();
        return refuse(502, "origin closed the connection while receiving the request");
      case RelayResult::Malformed:
        upstream_.reset();
        return refuse(400, "malformed chunked request body");
      default:  // the client left or stalled mid-body: nobody to answer
        upstream_.reset();
        return false;
    }
    return relayResponse(head, auth, upstream->conn);
  }

  // Relays interim and final response heads and the body; true to keep going.
  bool relayResponse(const RequestHead& request, const AuthResult& auth, BufferedSocket& origin) {
    using Status = HeadResult::Status;
    while (true) {
      const auto read = readHead(origin, runtime_.idleTimeout, kMaxHeadBytes, false, client_.fd());
      const auto refuse = [&](int status, const std::string& why) {
        upstream_.reset();
        log_.record({request.method, request.target, auth.user, status});
        return fail(status, why);
      };
      if (read.status == Status::PeerGone || read.status == Status::Stopped) {
        upstream_.reset();
        return false;
      }
      if (read.status == Status::Timeout) return refuse(504, "origin did not answer in time");
      if (read.status != Status::Ok) return refuse(502, "origin closed or broke the connection");
      const auto head = parseResponseHead(read.raw);
      if (!head) return refuse(502, "malformed response head from origin");
      const auto framing = responseFraming(*head, request.method == "HEAD");
      if (!framing) return refuse(502, "bad Content-Length from origin");
      if (head->status >= 200 || head->status == 101) {
        log_.record({request.method, request.target, auth.user, head->status});
      }
      // Byte for byte: the head goes out exactly as the origin wrote it.
      if (!send(read.raw)) {
        upstream_.reset();
        return false;
      }
      if (head->status == 101) {
        relayTunnel(client_, origin, runtime_.idleTimeout);
        upstream_.reset();
        return false;
      }
      if (head->status < 200) continue;
      const auto result = relayBody(origin, client_, *framing, runtime_.idleTimeout, true);
      const bool clean = result == RelayResult::Complete && framing->kind != BodyFraming::Kind::UntilClose;
      if (!clean || !responseKeepAlive(*head)) upstream_.reset();
      return clean && responseKeepAlive(*head) && requestKeepAlive(request);
    }
  }

  // The kept-alive origin connection if it goes to the same place and is
  // still quiet, else a new one. Throws Poco::Exception if connecting fails.
  Upstream& upstreamFor(const Authority& authority) {
    const auto key = authority.host + ":" + std::to_string(authority.port);
    if (upstream_ &&
        (upstream_->key != key || upstream_->conn.readableNow() || !upstream_->conn.buffer().empty())) {
      upstream_.reset();
    }
    if (!upstream_) {
      upstream_ = std::make_unique<Upstream>(connectLoopback(authority.port, kConnectTimeout), runtime_, key);
    }
    return *upstream_;
  }

  static std::string originRequestHead(const RequestHead& head, const AbsoluteTarget& target) {
    std::string out = head.method + " " + target.originForm + " " + head.version + "\r\n";
    bool haveHost = false;
    for (const auto& h : head.headers) {
      if (isProxyHeader(h)) continue;
      haveHost = haveHost || iequals(h.name, "host");
      out += h.name + ": " + h.value + "\r\n";
    }
    if (!haveHost) {
      out += "Host: " + target.authority.host + ":" + std::to_string(target.authority.port) + "\r\n";
    }
    return out + "\r\n";
  }

  static std::string challengeHeader() {
    return std::string("Proxy-Authenticate: ") + kProxyChallenge + "\r\n";
  }

  bool send(std::string_view bytes) {
    try {
      client_.writeAll(bytes);
      return true;
    } catch (const Poco::Exception&) {
      return false;
    }
  }

  static std::string formatResponse(int status, const std::string& body, const std::string& contentType,
                                    bool keepAlive, const std::string& extraHeaders) {
    std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) + "\r\n";
    if (!contentType.empty()) out += "Content-Type: " + contentType + "\r\n";
    if (status != 204) out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += extraHeaders;
    if (!keepAlive) out += "Connection: close\r\n";
    return out + "\r\n" + body;
  }

  // An answer from the proxy itself; true if the connection stays open.
  bool respond(int status, const std::string& body, const std::string& contentType, bool keepAlive) {
    return send(formatResponse(status, body, contentType, keepAlive, {})) && keepAlive;
  }

  // An error answer from the proxy itself, then a lingering close. Always
  // false: the connection ends.
  bool fail(int status, const std::string& why, const std::string& extraHeaders = {}) {
    if (!send(formatResponse(status, "fake_proxy: " + why + "\n", "text/plain", false, extraHeaders)))
      return false;
    client_.shutdownSend();
    size_t dropped = 0;
    const auto deadline = std::chrono::steady_clock::now() + kLingerTime;
    while (dropped < kLingerBytes) {
      dropped += client_.buffer().size();
      client_.buffer().clear();
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= 0s) break;
      if (client_.fill(std::chrono::duration_cast<std::chrono::milliseconds>(left)) != ReadStatus::Data)
        break;
    }
    return false;
  }

  Runtime& runtime_;
  ProxyLog& log_;
  const ForwardConfig& config_;
  BufferedSocket client_;
  std::unique_ptr<Upstream> upstream_;  // destroyed before client_
};

}  // namespace

void serveForwardConnection(Poco::Net::StreamSocket client, Runtime& runtime, ProxyLog& log,
                            const ForwardConfig& config) {
  try {
    client.setNoDelay(true);
    Session(std::move(client), runtime, log, config).run();
  } catch (const std::exception&) {
    // One broken connection must never take the proxy down.
  }
}

}  // namespace fake_proxy
