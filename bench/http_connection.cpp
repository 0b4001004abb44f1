#include "http_connection.h"

#include "http_wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bench {
namespace {

constexpr std::size_t kBufferSize = 64 * 1024;
constexpr std::size_t kMaxBody = 64 * 1024 * 1024;

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

HttpConnection::HttpConnection(std::uint16_t port, int timeout_ms)
    : port_(port), timeout_ms_(timeout_ms), buf_(kBufferSize) {}

HttpConnection::~HttpConnection() {
  close();
}

void HttpConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  begin_ = end_ = 0;
}

void HttpConnection::connect() {
  if (fd_ >= 0) return;
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw HttpError(errno_text("socket"));
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{timeout_ms_ / 1000, (timeout_ms_ % 1000) * 1000};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port_);
  // A blocking connect on loopback either succeeds or fails at once (a full
  // backlog is bounded by SO_SNDTIMEO).
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string msg = errno_text("connect");
    close();
    throw HttpError(msg);
  }
}

void HttpConnection::fill() {
  if (begin_ == end_) begin_ = end_ = 0;
  if (end_ == buf_.size()) {
    if (begin_ > 0) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    } else {
      buf_.resize(buf_.size() * 2);
    }
  }
  while (true) {
    const ssize_t n = ::recv(fd_, buf_.data() + end_, buf_.size() - end_, 0);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    const std::string msg = n == 0 ? std::string("connection closed by the server")
                            : (errno == EAGAIN || errno == EWOULDBLOCK)
                                ? "no response within " + std::to_string(timeout_ms_) + " ms"
                                : errno_text("recv");
    close();
    throw HttpError(msg);
  }
}

int HttpConnection::exchange(std::string_view request) {
  connect();
  body_.clear();
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string msg = errno_text("send");
      close();
      throw HttpError(msg);
    }
    sent += static_cast<std::size_t>(n);
  }

  std::size_t head_len = 0;
  while ((head_len = head_length(std::string_view(buf_.data() + begin_, end_ - begin_))) == 0) {
    if (end_ - begin_ > 64 * 1024) {
      close();
      throw HttpError("response head larger than 64 KiB");
    }
    fill();
  }
  const auto head = parse_head(std::string_view(buf_.data() + begin_, head_len));
  if (!head) {
    close();
    throw HttpError("malformed response head");
  }
  begin_ += head_len;

  if (head->chunked) {
    ChunkedDecoder decoder;
    while (true) {
      begin_ += decoder.feed(std::string_view(buf_.data() + begin_, end_ - begin_), body_);
      if (decoder.done()) break;
      if (decoder.failed() || body_.size() > kMaxBody) {
        close();
        throw HttpError("malformed chunked body");
      }
      fill();
    }
  } else if (head->content_length) {
    const std::uint64_t want = *head->content_length;
    if (want > kMaxBody) {
      close();
      throw HttpError("response body too large");
    }
    body_.reserve(static_cast<std::size_t>(want));
    while (true) {
      const std::size_t take =
          static_cast<std::size_t>(std::min<std::uint64_t>(want - body_.size(), end_ - begin_));
      body_.append(buf_.data() + begin_, take);
      begin_ += take;
      if (body_.size() == want) break;
      fill();
    }
  } else {
    // No framing: the body runs to the end of the connection.
    try {
      while (body_.size() < kMaxBody) {
        body_.append(buf_.data() + begin_, end_ - begin_);
        begin_ = end_;
        fill();
      }
    } catch (const HttpError&) {
    }
    close();
    return head->status;
  }
  if (head->close) close();
  return head->status;
}

}  // namespace bench
