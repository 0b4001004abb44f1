#include "load_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace bench {
namespace {

constexpr std::size_t kLoadReadBuffer = 64 * 1024;
constexpr std::size_t kLoadMaxHead = 64 * 1024;
constexpr std::size_t kLoadBodyStart = 160;

std::string load_errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

LoadConnection::LoadConnection(std::uint16_t port) : port_(port), buf_(kLoadReadBuffer) {}

LoadConnection::~LoadConnection() {
  close();
}

void LoadConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  begin_ = end_ = 0;
}

bool LoadConnection::open() {
  close();
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    error_ = load_errno_text("socket");
    return false;
  }
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port_);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    error_ = load_errno_text("connect");
    close();
    return false;
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
  return true;
}

LoadConnection::Step LoadConnection::fail(std::string reason) {
  error_ = std::move(reason);
  close();
  return Step::failed;
}

LoadConnection::Step LoadConnection::start(std::string_view request) {
  request_ = request;
  sent_ = 0;
  head_.reset();
  body_left_ = 0;
  to_end_ = false;
  chunked_.reset();
  body_start_.clear();
  error_.clear();
  if (fd_ < 0) return fail("not connected");
  return advance();
}

LoadConnection::Step LoadConnection::advance() {
  if (fd_ < 0) return fail("not connected");
  if (sent_ < request_.size()) {
    while (sent_ < request_.size()) {
      const ssize_t n = ::send(fd_, request_.data() + sent_, request_.size() - sent_, MSG_NOSIGNAL);
      if (n > 0) {
        sent_ += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return Step::waiting;
      } else {
        return fail(load_errno_text("send"));
      }
    }
    // The answer cannot have come yet: wait for the socket to say it has
    // rather than ask it (one recv() less per request, as wrk).
    return Step::waiting;
  }
  return read();
}

LoadConnection::Step LoadConnection::read() {
  while (true) {
    if (const Step s = consume(); s != Step::waiting) return s;
    if (begin_ == end_) begin_ = end_ = 0;
    if (end_ == buf_.size()) {
      if (begin_ == 0) return fail("response head larger than 64 KiB");
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    const ssize_t n = ::recv(fd_, buf_.data() + end_, buf_.size() - end_, 0);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Step::waiting;
    if (n == 0 && to_end_) {
      close();  // the answer ran to the end of the connection
      return Step::done;
    }
    return fail(n == 0 ? std::string("connection closed by the server") : load_errno_text("recv"));
  }
}

LoadConnection::Step LoadConnection::consume() {
  if (begin_ == end_) return Step::waiting;
  if (!head_) {
    const std::string_view data(buf_.data() + begin_, end_ - begin_);
    const std::size_t len = head_length(data);
    if (len == 0)
      return data.size() > kLoadMaxHead ? fail("response head larger than 64 KiB") : Step::waiting;
    head_ = parse_head(data.substr(0, len));
    begin_ += len;
    if (!head_) return fail("malformed response head");
    if (head_->chunked) {
      chunked_.emplace();
    } else if (head_->content_length) {
      body_left_ = *head_->content_length;
      if (body_left_ == 0) return Step::done;
    } else {
      to_end_ = true;
    }
  }
  const auto keep = [&](std::string_view piece) {
    if (body_start_.size() < kLoadBodyStart)
      body_start_.append(piece.substr(0, kLoadBodyStart - body_start_.size()));
  };
  const std::string_view data(buf_.data() + begin_, end_ - begin_);
  if (chunked_) {
    begin_ += chunked_->feed(data, scratch_);
    keep(scratch_);
    scratch_.clear();
    if (chunked_->failed()) return fail("malformed chunked body");
    return chunked_->done() ? Step::done : Step::waiting;
  }
  if (to_end_) {
    keep(data);
    begin_ = end_;
    return Step::waiting;
  }
  const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(body_left_, data.size()));
  keep(data.substr(0, take));
  begin_ += take;
  body_left_ -= take;
  return body_left_ == 0 ? Step::done : Step::waiting;
}

}  // namespace bench
