#include "edge_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace it {

EdgeSocket::EdgeSocket(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("socket() failed");
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
    ::close(fd_);
    throw std::runtime_error("connect() failed");
  }
  pollfd p{fd_, POLLOUT, 0};
  int error = 0;
  socklen_t length = sizeof error;
  if (::poll(&p, 1, 5000) != 1 || ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length) != 0 ||
      error != 0) {
    ::close(fd_);
    throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " did not complete");
  }
}

EdgeSocket::~EdgeSocket() {
  close();
}

void EdgeSocket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool EdgeSocket::send(std::string_view bytes) {
  if (fd_ < 0 || closed_) return false;
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;  // the rest is dropped: tests send little
    if (n <= 0) {
      read_some(0);  // an answer may have come before the close
      if (!closed_) {
        closed_ = true;
        reset_ = true;
        closed_at_ = EdgeClock::now();
      }
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Waits up to `wait_ms` for bytes, then reads all there are; false when
// nothing arrived.
bool EdgeSocket::read_some(int wait_ms) {
  if (fd_ < 0 || closed_) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, wait_ms) <= 0) return false;
  bool got = false;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n > 0) {
      received_.append(buffer, static_cast<std::size_t>(n));
      got = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    closed_ = true;
    reset_ = n < 0;
    closed_at_ = EdgeClock::now();
    break;
  }
  return got;
}

void EdgeSocket::poll() {
  read_some(0);
}

bool EdgeSocket::wait_closed(EdgeClock::time_point deadline) {
  // Looks at least once, even when the deadline has passed already.
  read_some(0);
  while (!closed_ && fd_ >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - EdgeClock::now()).count();
    if (left <= 0) break;
    read_some(static_cast<int>(std::min<long long>(left, 100)));
  }
  return closed_;
}

std::optional<HttpResponse> EdgeSocket::wait_answer(EdgeClock::time_point deadline) {
  for (;;) {
    std::size_t consumed = 0;
    if (auto answer = parse_answer(received_, &consumed)) {
      received_.erase(0, consumed);
      return answer;
    }
    if (closed_ || fd_ < 0) return std::nullopt;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - EdgeClock::now()).count();
    if (left <= 0) return std::nullopt;
    read_some(static_cast<int>(std::min<long long>(left, 100)));
  }
}

std::optional<HttpResponse> parse_answer(const std::string& bytes, std::size_t* consumed) {
  const auto head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string::npos || bytes.compare(0, 9, "HTTP/1.1 ") != 0 || head_end < 12)
    return std::nullopt;
  HttpResponse r;
  r.status = std::atoi(bytes.substr(9, 3).c_str());
  std::size_t pos = bytes.find("\r\n") + 2;
  while (pos < head_end) {
    const auto end = bytes.find("\r\n", pos);
    const std::string line = bytes.substr(pos, end - pos);
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      r.headers.emplace_back(ascii_lower(line.substr(0, colon)), value);
    }
    pos = end + 2;
  }
  const std::string length = r.header("content-length");
  const std::size_t body_size = length.empty() ? 0 : std::stoul(length);
  if (bytes.size() < head_end + 4 + body_size) return std::nullopt;
  r.body = bytes.substr(head_end + 4, body_size);
  if (consumed != nullptr) *consumed = head_end + 4 + body_size;
  return r;
}

std::string ms(EdgeClock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

}  // namespace it
