#include "upstream/upstream_connection.h"

#include <sys/socket.h>

#include <cerrno>

namespace modelgw::upstream {

namespace asio = net::asio;

UpstreamConnection::UpstreamConnection(net::TcpSocket socket) : plain_(std::move(socket)) {}

UpstreamConnection::UpstreamConnection(std::unique_ptr<TlsStream> tls) : tls_(std::move(tls)) {}

UpstreamConnection::~UpstreamConnection() = default;

net::Task<std::size_t> UpstreamConnection::read_some(asio::mutable_buffer buffer, ErrorCode& ec) {
  // Not a coroutine: the operation starts when the caller awaits it.
  if (tls_) return tls_->async_read_some(buffer, asio::redirect_error(net::use_awaitable, ec));
  return plain_->async_read_some(buffer, asio::redirect_error(net::use_awaitable, ec));
}

net::Task<std::size_t> UpstreamConnection::write(const std::array<asio::const_buffer, 2>& buffers,
                                                 ErrorCode& ec) {
  // One gathered write: the head and the body leave in one syscall, no copy.
  if (tls_) return asio::async_write(*tls_, buffers, asio::redirect_error(net::use_awaitable, ec));
  return asio::async_write(*plain_, buffers, asio::redirect_error(net::use_awaitable, ec));
}

net::Task<void> UpstreamConnection::wait_readable(ErrorCode& ec) {
  if (tls_) {
    ec = {};
    return []() -> net::Task<void> { co_return; }();
  }
  return plain_->async_wait(net::TcpSocket::wait_read, asio::redirect_error(net::use_awaitable, ec));
}

std::size_t UpstreamConnection::available() {
  if (tls_) return 0;
  ErrorCode ec;
  const std::size_t n = plain_->available(ec);
  return ec ? 0 : n;
}

void UpstreamConnection::cancel() {
  ErrorCode ignored;
  socket().cancel(ignored);
}

void UpstreamConnection::close() {
  ErrorCode ignored;
  socket().shutdown(net::TcpSocket::shutdown_both, ignored);
  socket().close(ignored);
}

bool UpstreamConnection::looks_closed() {
  if (!socket().is_open()) return true;
  char byte = 0;
  const auto n = ::recv(socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;  // nothing to read: alive
  return true;
}

}  // namespace modelgw::upstream
