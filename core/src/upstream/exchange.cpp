#include "upstream/exchange.h"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLException.h>

#include <istream>

namespace modelgw::upstream {
namespace {

Poco::Timespan to_timespan(std::chrono::milliseconds ms) {
  return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms.count()) * 1000);
}

std::string where(const ConnectionPool& pool) {
  return pool.url().host + ":" + std::to_string(pool.url().port);
}

}  // namespace

Exchange::Exchange(ConnectionPool& pool, int timeout_ms) : pool_(pool), timeout_(timeout_ms) {}

Exchange::~Exchange() {
  // A session goes back to the pool only when its body was read to the end;
  // anything else would leave unread bytes for the next request.
  if (session_ && body_done_) pool_.release(std::move(session_));
}

void Exchange::set_receive_timeout(std::chrono::milliseconds timeout) {
  if (timeout.count() < 1) timeout = std::chrono::milliseconds(1);
  session_->socket().setReceiveTimeout(to_timespan(timeout));
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
  set_receive_timeout(timeout_);
  body_ = &session_->receiveResponse(response_);
}

void Exchange::start(const OutgoingRequest& request) {
  deadline_ = std::chrono::steady_clock::now() + timeout_;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = false;
    try {
      session_ = pool_.acquire(reused);
      session_->setTimeout(to_timespan(pool_.connect_timeout()), to_timespan(timeout_),
                           to_timespan(timeout_));
    } catch (const Poco::Exception& e) {
      throw UpstreamFailure(FailureKind::connect,
                            "cannot connect to " + where(pool_) + ": " + e.displayText());
    }
    try {
      send_once(request);
      return;
    } catch (const Poco::TimeoutException&) {
      session_.reset();
      throw UpstreamFailure(FailureKind::timeout, "no response from " + where(pool_) + " within " +
                                                      std::to_string(timeout_.count()) + " ms");
    } catch (const Poco::Net::SSLException& e) {
      session_.reset();
      throw UpstreamFailure(FailureKind::connect, "TLS with " + where(pool_) + " failed: " + e.displayText());
    } catch (const Poco::Net::ConnectionRefusedException& e) {
      session_.reset();
      throw UpstreamFailure(FailureKind::connect,
                            "cannot connect to " + where(pool_) + ": " + e.displayText());
    } catch (const Poco::Net::HostNotFoundException& e) {
      session_.reset();
      throw UpstreamFailure(FailureKind::connect, "cannot resolve " + where(pool_) + ": " + e.displayText());
    } catch (const Poco::Exception& e) {
      session_.reset();
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

std::string Exchange::read_all(std::size_t max_bytes) {
  std::string out;
  if (response_.hasContentLength() && response_.getContentLength64() > 0) {
    out.reserve(static_cast<std::size_t>(
        std::min<Poco::Int64>(response_.getContentLength64(), static_cast<Poco::Int64>(max_bytes))));
  }
  char buffer[16384];
  while (true) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      abort();
      throw UpstreamFailure(FailureKind::timeout, "the response from " + where(pool_) + " took longer than " +
                                                      std::to_string(timeout_.count()) + " ms");
    }
    std::size_t n = 0;
    try {
      set_receive_timeout(left);
      n = static_cast<std::size_t>(body().sgetn(buffer, sizeof buffer));
    } catch (const Poco::TimeoutException&) {
      abort();
      throw UpstreamFailure(FailureKind::timeout, "the response from " + where(pool_) + " stalled");
    } catch (const Poco::Exception& e) {
      abort();
      throw UpstreamFailure(FailureKind::io,
                            "reading the response from " + where(pool_) + " failed: " + e.displayText());
    }
    if (n == 0) break;
    if (out.size() + n > max_bytes) {
      abort();
      throw UpstreamFailure(FailureKind::too_large, "the response from " + where(pool_) + " exceeds " +
                                                        std::to_string(max_bytes) + " bytes");
    }
    out.append(buffer, n);
  }
  body_done_ = true;
  return out;
}

std::size_t Exchange::read_some(char* buffer, std::size_t capacity) {
  try {
    set_receive_timeout(timeout_);
    std::streambuf& sb = body();
    if (sb.sgetc() == std::char_traits<char>::eof()) {  // blocks until a byte or the end
      body_done_ = true;
      return 0;
    }
    std::streamsize available = std::max<std::streamsize>(1, sb.in_avail());
    return static_cast<std::size_t>(sb.sgetn(buffer, std::min<std::streamsize>(available, capacity)));
  } catch (const Poco::TimeoutException&) {
    abort();
    throw UpstreamFailure(FailureKind::timeout, "the stream from " + where(pool_) + " sent nothing for " +
                                                    std::to_string(timeout_.count()) + " ms");
  } catch (const Poco::Exception& e) {
    abort();
    throw UpstreamFailure(FailureKind::io, "the stream from " + where(pool_) + " broke: " + e.displayText());
  }
}

void Exchange::abort() {
  if (session_) {
    try {
      session_->abort();
    } catch (...) {  // closing a broken socket may fail again; nothing to do
    }
    session_.reset();
  }
  body_done_ = false;
}

}  // namespace modelgw::upstream
