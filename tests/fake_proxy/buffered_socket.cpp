#include "buffered_socket.h"

#include <Poco/Exception.h>
#include <Poco/Net/SocketAddress.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>

namespace fake_proxy {
namespace {

using Clock = std::chrono::steady_clock;
// How often a waiting thread looks at the stop flag.
constexpr std::chrono::milliseconds kPollSlice{100};
constexpr size_t kReadChunk = 16 * 1024;

Poco::Timespan toTimespan(std::chrono::milliseconds ms) {
  return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms.count()) * 1000);
}

}  // namespace

BufferedSocket::BufferedSocket(Poco::Net::StreamSocket socket, Runtime& runtime, Transport transport)
    : socket_(std::move(socket)), runtime_(runtime), fd_(socket_.impl()->sockfd()), transport_(transport) {
  // A peer that stops reading must not block a writer forever.
  socket_.setSendTimeout(toTimespan(runtime.idleTimeout));
  // Bounds a TLS read that waits for the rest of a record after poll().
  socket_.setReceiveTimeout(toTimespan(runtime.idleTimeout));
  runtime_.sockets.add(fd_);
}

BufferedSocket::~BufferedSocket() {
  // Unregister before closing, so a stop never shuts down a reused fd number.
  runtime_.sockets.remove(fd_);
  try {
    socket_.close();
  } catch (const Poco::Exception&) {
    // A failed TLS close_notify on a dead connection is expected.
  }
}

ReadStatus BufferedSocket::fill(std::chrono::milliseconds idle, int watchFd) {
  const auto deadline = Clock::now() + idle;
  bool ready = hasDecryptedInput();
  while (!ready) {
    if (runtime_.stopping.load()) return ReadStatus::Stopped;
    const auto now = Clock::now();
    if (now >= deadline) return ReadStatus::Timeout;
    const auto wait =
        std::min(kPollSlice, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
    pollfd fds[2] = {{fd_, POLLIN, 0}, {watchFd, POLLRDHUP, 0}};
    const int n = ::poll(fds, watchFd >= 0 ? 2 : 1, static_cast<int>(wait.count()) + 1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadStatus::Error;
    }
    if (watchFd >= 0 && (fds[1].revents & (POLLRDHUP | POLLHUP | POLLERR))) return ReadStatus::PeerGone;
    ready = fds[0].revents != 0;  // data, EOF and errors all surface through the read
  }
  std::array<char, kReadChunk> chunk{};
  int n = 0;
  try {
    n = socket_.receiveBytes(chunk.data(), static_cast<int>(chunk.size()));
  } catch (const Poco::TimeoutException&) {
    return ReadStatus::Timeout;
  } catch (const Poco::Exception&) {
    return ReadStatus::Error;
  }
  if (n == 0) return ReadStatus::Eof;
  if (n < 0) return ReadStatus::Error;
  buffer_.append(chunk.data(), static_cast<size_t>(n));
  return ReadStatus::Data;
}

void BufferedSocket::writeAll(std::string_view bytes) {
  while (!bytes.empty()) {
    if (runtime_.stopping.load()) throw Poco::IOException("stopping");
    const int n = socket_.sendBytes(bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), 1 << 20)));
    if (n <= 0) throw Poco::IOException("send failed");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void BufferedSocket::shutdownSend() {
  try {
    socket_.shutdownSend();
  } catch (const Poco::Exception&) {
  }
}

bool BufferedSocket::readableNow() const {
  pollfd pfd{fd_, POLLIN, 0};
  return ::poll(&pfd, 1, 0) != 0;
}

bool BufferedSocket::hasDecryptedInput() {
  if (transport_ == Transport::Plain) return false;  // plain TCP: poll() sees everything
  try {
    return socket_.available() > 0;
  } catch (const Poco::Exception&) {
    return false;
  }
}

Poco::Net::StreamSocket connectLoopback(int port, std::chrono::milliseconds timeout) {
  Poco::Net::StreamSocket socket;
  socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)), toTimespan(timeout));
  // Relayed streams (SSE) must not wait for Nagle.
  socket.setNoDelay(true);
  return socket;
}

}  // namespace fake_proxy
