#include "upstream/exchange.h"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLException.h>

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <istream>

namespace modelgw::upstream {
namespace {

using Clock = std::chrono::steady_clock;

Poco::Timespan to_timespan(std::chrono::milliseconds ms) {
  return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms.count()) * 1000);
}

std::string where(const ConnectionPool& pool) {
  return pool.url().host + ":" + std::to_string(pool.url().port);
}

// Bytes POCO already read from the socket into the session's own buffer. They
// are invisible to poll(), so a wait must look here first. HTTPSession keeps
// buffered() protected; naming it through a derived class is the standard way
// to reach it without changing POCO.
struct SessionBuffer : Poco::Net::HTTPSession {
  static int of(const Poco::Net::HTTPSession& s) { return (s.*(&SessionBuffer::buffered))(); }
};

}  // namespace

Exchange::Exchange(ConnectionPool& pool, Timeouts timeouts, int client_fd)
    : pool_(pool), timeouts_(timeouts), client_fd_(client_fd) {}

Exchange::~Exchange() {
  // A session goes back to the pool only when its body was read to the end;
  // anything else would leave unread bytes for the next request.
  if (!session_) return;
  if (body_done_) {
    pool_.release(std::move(session_));
  } else {
    pool_.discard(std::move(session_));
  }
}

void Exchange::fail(FailureKind kind, const std::string& message) {
  abort();
  throw UpstreamFailure(kind, message);
}

void Exchange::set_receive_timeout(Clock::time_point until) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  if (left.count() < 1) left = std::chrono::milliseconds(1);
  session_->socket().setReceiveTimeout(to_timespan(left));
}

Clock::time_point Exchange::next_piece_deadline() const {
  return std::min(deadline_, Clock::now() + timeouts_.first_byte);
}

Exchange::Wait Exchange::wait_readable(Clock::time_point until) {
  const int upstream_fd = session_->socket().impl()->sockfd();
  // Bounded: each turn either returns or waits at most until `until`.
  while (true) {
    if (body_ != nullptr && body_left_ == 0) return Wait::ready;  // the read reports the end, no I/O
    // The deadline first: a vendor that never pauses must not outrun it.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return Wait::timeout;
    if (body_ != nullptr && body_->rdbuf()->in_avail() > 0) return Wait::ready;
    if (SessionBuffer::of(*session_) > 0) return Wait::ready;
    if (session_->socket().available() > 0) return Wait::ready;  // for TLS: decrypted bytes pending
    pollfd fds[2] = {{upstream_fd, POLLIN, 0}, {client_fd_, POLLRDHUP, 0}};
    const int n =
        ::poll(fds, client_fd_ >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) return Wait::ready;  // let the read report the error
    if (n <= 0) continue;
    if (client_fd_ >= 0 && (fds[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) return Wait::client_gone;
    if (fds[0].revents != 0) return Wait::ready;  // data, or an error/hang-up the read will report
  }
}

void Exchange::send_once(const OutgoingRequest& request) {
  const auto& url = pool_.url();
  Poco::Net::HTTPRequest req(request.method, url.base_path + request.path, Poco::Net::HTTPMessage::HTTP_1_1);
  req.setHost(url.host, url.port);
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.setContentLength(static_cast<std::streamsize>(request.body.size()));
  req.setKeepAlive(true);
  std::ostream& out = session_->sendRequest(req);
  // The head went out in its own write; without TCP_NODELAY the body would
  // wait for that write's ACK (Nagle), adding latency to every call.
  session_->socket().setNoDelay(true);
  out.write(request.body.data(), static_cast<std::streamsize>(request.body.size()));
  out.flush();
  const auto first_byte = std::min(deadline_, Clock::now() + timeouts_.first_byte);
  switch (wait_readable(first_byte)) {
    case Wait::timeout:
      throw Poco::TimeoutException("no response head");
    case Wait::client_gone:
      throw UpstreamFailure(FailureKind::cancelled,
                            "the client hung up while " + where(pool_) + " was working");
    case Wait::ready:
      break;
  }
  set_receive_timeout(first_byte);
  body_ = &session_->receiveResponse(response_);
  // As POCO frames the body: without this, the wait before each read would
  // poll a kept-alive socket for bytes that never come after the last one.
  const int status = response_.status_code();
  if (request.method == "HEAD" || status < 200 || status == 204 || status == 304) {
    body_left_ = 0;
  } else if (!response_.getChunkedTransferEncoding() && response_.hasContentLength()) {
    body_left_ = response_.getContentLength64();
  } else {
    body_left_ = -1;
  }
}

void Exchange::start(const OutgoingRequest& request) {
  deadline_ = Clock::now() + timeouts_.total;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = false;
    try {
      session_ = pool_.acquire(reused, Clock::now() + pool_.connect_timeout());
    } catch (const Poco::Exception& e) {
      throw UpstreamFailure(FailureKind::connect,
                            "cannot connect to " + where(pool_) + ": " + e.displayText());
    }
    if (!session_) {
      throw UpstreamFailure(FailureKind::busy, "all " + std::to_string(pool_.max_connections()) +
                                                   " connections to " + where(pool_) +
                                                   " stayed busy for the connect timeout");
    }
    session_->setTimeout(to_timespan(pool_.connect_timeout()), to_timespan(timeouts_.first_byte),
                         to_timespan(timeouts_.first_byte));
    try {
      send_once(request);
      return;
    } catch (const UpstreamFailure& f) {
      fail(f.kind(), f.what());
    } catch (const Poco::TimeoutException&) {
      fail(FailureKind::timeout, "no response from " + where(pool_) + " within " +
                                     std::to_string(timeouts_.first_byte.count()) + " ms");
    } catch (const Poco::Net::SSLException& e) {
      fail(FailureKind::connect, "TLS with " + where(pool_) + " failed: " + e.displayText());
    } catch (const Poco::Net::ConnectionRefusedException& e) {
      fail(FailureKind::connect, "cannot connect to " + where(pool_) + ": " + e.displayText());
    } catch (const Poco::Net::HostNotFoundException& e) {
      fail(FailureKind::connect, "cannot resolve " + where(pool_) + ": " + e.displayText());
    } catch (const Poco::Exception& e) {
      abort();
      // A kept-alive connection the server had already closed fails like this
      // before the request was read: try once more on a fresh connection.
      if (reused && attempt == 0) continue;
      throw UpstreamFailure(reused ? FailureKind::io : FailureKind::connect,
                            "connection to " + where(pool_) + " failed: " + e.displayText());
    }
  }
}

std::streambuf& Exchange::body() {
  return *body_->rdbuf();
}

std::size_t Exchange::read_available(char* buffer, std::size_t capacity) {
  std::streambuf& sb = body();
  if (sb.sgetc() == std::char_traits<char>::eof()) return 0;  // blocks until a byte or the end
  // Never more than has arrived: a larger read would wait for the rest past
  // every deadline (sgetn keeps reading until it has all it asked for).
  const std::streamsize available = std::max<std::streamsize>(1, sb.in_avail());
  const auto n = static_cast<std::size_t>(
      sb.sgetn(buffer, std::min<std::streamsize>(available, static_cast<std::streamsize>(capacity))));
  if (body_left_ > 0) body_left_ -= std::min<std::int64_t>(body_left_, static_cast<std::int64_t>(n));
  return n;
}

std::string Exchange::read_all(std::size_t max_bytes) {
  std::string out;
  if (response_.hasContentLength() && response_.getContentLength64() > 0) {
    out.reserve(static_cast<std::size_t>(
        std::min<Poco::Int64>(response_.getContentLength64(), static_cast<Poco::Int64>(max_bytes))));
  }
  char buffer[16384];
  while (true) {
    switch (wait_readable(deadline_)) {
      case Wait::timeout:
        fail(FailureKind::timeout, "the response from " + where(pool_) + " took longer than " +
                                       std::to_string(timeouts_.total.count()) + " ms");
      case Wait::client_gone:
        fail(FailureKind::cancelled, "the client hung up while " + where(pool_) + " was answering");
      case Wait::ready:
        break;
    }
    std::size_t n = 0;
    try {
      set_receive_timeout(deadline_);
      n = read_available(buffer, sizeof buffer);
    } catch (const Poco::TimeoutException&) {
      fail(FailureKind::timeout, "the response from " + where(pool_) + " stalled");
    } catch (const Poco::Exception& e) {
      fail(FailureKind::io, "reading the response from " + where(pool_) + " failed: " + e.displayText());
    }
    if (n == 0) break;
    if (out.size() + n > max_bytes) {
      fail(FailureKind::too_large,
           "the response from " + where(pool_) + " exceeds " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buffer, n);
  }
  body_done_ = true;
  return out;
}

std::size_t Exchange::read_some(char* buffer, std::size_t capacity) {
  const auto until = next_piece_deadline();
  switch (wait_readable(until)) {
    case Wait::timeout:
      fail(FailureKind::timeout, until >= deadline_
                                     ? "the stream from " + where(pool_) + " took longer than " +
                                           std::to_string(timeouts_.total.count()) + " ms"
                                     : "the stream from " + where(pool_) + " sent nothing for " +
                                           std::to_string(timeouts_.first_byte.count()) + " ms");
    case Wait::client_gone:
      fail(FailureKind::cancelled, "the client hung up during the stream from " + where(pool_));
    case Wait::ready:
      break;
  }
  try {
    set_receive_timeout(until);
    const std::size_t n = read_available(buffer, capacity);
    if (n == 0) body_done_ = true;
    return n;
  } catch (const Poco::TimeoutException&) {
    fail(FailureKind::timeout, "the stream from " + where(pool_) + " stalled");
  } catch (const Poco::Exception& e) {
    fail(FailureKind::io, "the stream from " + where(pool_) + " broke: " + e.displayText());
  }
}

void Exchange::abort() {
  if (session_) pool_.discard(std::move(session_));
  session_.reset();
  body_ = nullptr;
  body_done_ = false;
  body_left_ = -1;
}

}  // namespace modelgw::upstream
