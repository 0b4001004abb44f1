#include "upstream/upstream_connect.h"

#include "upstream/failure.h"
#include "upstream/upstream_connection.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <optional>
#include <string_view>
#include <vector>

namespace modelgw::upstream {
namespace {

namespace asio = net::asio;
using Tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;

// What the timer and the client's hang-up touch. Shared with their handlers,
// which may run after the connect finished: `active` says whether the
// resolver and socket still exist.
struct Watch {
  bool active = true;
  bool timed_out = false;
  bool cancelled = false;
  net::TcpResolver* resolver = nullptr;
  net::TcpSocket* socket = nullptr;

  void stop_io() {
    ErrorCode ignored;
    resolver->cancel();
    socket->cancel(ignored);
  }
};

// "HTTP/1.x 2xx ..." from a proxy's answer to CONNECT.
bool tunnel_accepted(std::string_view head, int& status) {
  if (head.size() < 12 || head.substr(0, 7) != "HTTP/1." || head[8] != ' ') return false;
  status = 0;
  for (int i = 9; i < 12; ++i) {
    if (head[i] < '0' || head[i] > '9') return false;
    status = status * 10 + (head[i] - '0');
  }
  return status >= 200 && status < 300;
}

bool is_ip_literal(const std::string& host) {
  ErrorCode ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

net::Task<std::unique_ptr<UpstreamConnection>> open_connection(const ConnectPlan& plan,
                                                               boost::asio::ssl::context* tls_context,
                                                               net::CancelSignal* cancel) {
  auto executor = co_await asio::this_coro::executor;
  net::TcpResolver resolver(executor);
  std::unique_ptr<UpstreamConnection::TlsStream> tls;
  std::optional<net::TcpSocket> plain;
  if (!plan.tls_host.empty()) {
    tls = std::make_unique<UpstreamConnection::TlsStream>(executor, *tls_context);
  } else {
    plain.emplace(executor);
  }
  net::TcpSocket& socket = tls ? tls->next_layer() : *plain;

  auto watch = std::make_shared<Watch>();
  watch->resolver = &resolver;
  watch->socket = &socket;
  net::SteadyTimer timer(executor, plan.timeout);
  timer.async_wait([watch](ErrorCode ec) {
    if (ec || !watch->active) return;
    watch->timed_out = true;
    watch->stop_io();
  });
  net::ScopedSlot on_cancel(cancel, [watch] {
    if (!watch->active) return;
    watch->cancelled = true;
    watch->stop_io();
  });
  struct Deactivate {
    Watch& watch;
    net::SteadyTimer& timer;
    ~Deactivate() {
      watch.active = false;
      timer.cancel();
    }
  } deactivate{*watch, timer};

  // Every step's outcome: the hang-up and the timer first (they caused the
  // error the step reports), then the step's own error.
  const auto check = [&](const ErrorCode& ec, const char* what) {
    if (watch->cancelled) {
      throw UpstreamFailure(FailureKind::cancelled, "the client hung up while connecting to " + plan.where);
    }
    if (watch->timed_out) {
      throw UpstreamFailure(FailureKind::connect, "could not connect to " + plan.where + " within " +
                                                      std::to_string(plan.timeout.count()) + " ms");
    }
    if (ec)
      throw UpstreamFailure(FailureKind::connect, std::string(what) + " " + plan.where + ": " + ec.message());
  };
  check({}, "");  // the client may have gone already

  ErrorCode ec;
  std::vector<Tcp::endpoint> endpoints;
  if (is_ip_literal(plan.host)) {
    endpoints.emplace_back(asio::ip::make_address(plan.host), plan.port);
  } else {
    auto results = co_await resolver.async_resolve(plan.host, std::to_string(plan.port),
                                                   asio::redirect_error(net::use_awaitable, ec));
    check(ec, plan.via_proxy ? "cannot resolve the proxy for" : "cannot resolve");
    for (const auto& r : results) endpoints.push_back(r.endpoint());
  }
  co_await asio::async_connect(socket, endpoints, asio::redirect_error(net::use_awaitable, ec));
  check(ec, plan.via_proxy ? "cannot connect to the proxy for" : "cannot connect to");
  // Requests are written head and body in one go, but a small request must
  // not wait for the ACK of the previous one (Nagle).
  socket.set_option(Tcp::no_delay(true), ec);

  if (!plan.tunnel_request.empty()) {
    co_await asio::async_write(socket, asio::buffer(plan.tunnel_request),
                               asio::redirect_error(net::use_awaitable, ec));
    check(ec, "the proxy failed for");
    std::string head;
    const std::size_t n =
        co_await asio::async_read_until(socket, asio::dynamic_buffer(head, 16 * 1024), "\r\n\r\n",
                                        asio::redirect_error(net::use_awaitable, ec));
    check(ec, "the proxy failed for");
    int status = 0;
    if (!tunnel_accepted(head, status)) {
      throw UpstreamFailure(FailureKind::connect,
                            "the proxy refused the tunnel to " + plan.where +
                                (status > 0 ? " (status " + std::to_string(status) + ")" : ""));
    }
    // The upstream speaks only after the TLS client hello: more bytes here
    // would be the proxy's, and would corrupt the handshake.
    if (head.size() != n) {
      throw UpstreamFailure(FailureKind::connect,
                            "the proxy sent more than its answer to CONNECT for " + plan.where);
    }
  }

  if (tls) {
    SSL* ssl = tls->native_handle();
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    if (is_ip_literal(plan.tls_host)) {
      X509_VERIFY_PARAM_set1_ip_asc(param, plan.tls_host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, plan.tls_host.c_str());  // SNI: names only (RFC 6066)
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, plan.tls_host.c_str(), 0);
    }
    tls->set_verify_mode(asio::ssl::verify_peer);
    co_await tls->async_handshake(asio::ssl::stream_base::client,
                                  asio::redirect_error(net::use_awaitable, ec));
    check(ec, "TLS failed with");
    co_return std::make_unique<UpstreamConnection>(std::move(tls));
  }
  co_return std::make_unique<UpstreamConnection>(std::move(*plain));
}

}  // namespace modelgw::upstream
