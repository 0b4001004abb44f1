// One open connection to an upstream (directly, or through an HTTP proxy),
// plain TCP or TLS. It belongs to the event loop that opened it and is only
// ever used there; the pool keeps it idle between requests.
#pragma once

#include "net/asio.h"

#include <boost/asio/ssl.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <optional>

namespace modelgw::upstream {

class UpstreamConnection {
 public:
  using TlsStream = net::asio::ssl::stream<net::TcpSocket>;
  using ErrorCode = boost::system::error_code;

  explicit UpstreamConnection(net::TcpSocket socket);
  explicit UpstreamConnection(std::unique_ptr<TlsStream> tls);
  ~UpstreamConnection();
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  // The loop (execution context) the connection was opened on: the key of the
  // pool's idle list it goes back to.
  const void* loop() { return &net::asio::query(socket().get_executor(), net::asio::execution::context); }
  net::Executor executor() { return socket().get_executor(); }
  bool tls() const { return tls_ != nullptr; }
  net::TcpSocket& socket() { return tls_ ? tls_->next_layer() : *plain_; }

  // Whether it served a request before (the server may have closed it since).
  bool reused() const { return reused_; }
  void mark_reused() { reused_ = true; }

  // Both return awaitables that start when awaited; `ec` must outlive the await.
  net::Task<std::size_t> read_some(net::asio::mutable_buffer buffer, ErrorCode& ec);
  net::Task<std::size_t> write(const std::array<net::asio::const_buffer, 2>& buffers, ErrorCode& ec);
  // Plain TCP: waits until the socket is readable without holding a buffer.
  // TLS: returns at once (decrypted bytes may wait inside the TLS engine, which
  // the socket's readiness does not show), the read itself then waits.
  net::Task<void> wait_readable(ErrorCode& ec);
  // Bytes the kernel holds for a read (plain TCP), 0 when unknown.
  std::size_t available();

  // Makes the pending operation complete with operation_aborted.
  void cancel();
  // Closes the socket now; pending operations complete with an error.
  void close();
  // For an idle connection about to be reused: anything readable (the
  // server's FIN, a reset, stray bytes) means it cannot carry a request.
  bool looks_closed();

 private:
  std::optional<net::TcpSocket> plain_;
  std::unique_ptr<TlsStream> tls_;
  bool reused_ = false;
};

}  // namespace modelgw::upstream
