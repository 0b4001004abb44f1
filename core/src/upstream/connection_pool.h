// Keep-alive HTTP(S) connections to one upstream host, reused across requests
// so the hot path pays for a TCP (and TLS) handshake only when the pool is empty.
#pragma once

#include "upstream/upstream_url.h"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace modelgw::upstream {

class ConnectionPool {
 public:
  // `max_idle`: idle connections kept; more may be open while busy.
  ConnectionPool(UpstreamUrl url, int max_idle, int connect_timeout_ms);

  // A session ready to send; `reused` says whether it served a request before
  // (a reused one may have been closed by the server while idle).
  std::unique_ptr<Poco::Net::HTTPClientSession> acquire(bool& reused);
  // Returns a session whose response was read to the end.
  void release(std::unique_ptr<Poco::Net::HTTPClientSession> session);

  const UpstreamUrl& url() const { return url_; }
  std::chrono::milliseconds connect_timeout() const { return std::chrono::milliseconds(connect_timeout_ms_); }

 private:
  std::unique_ptr<Poco::Net::HTTPClientSession> connect_new() const;

  UpstreamUrl url_;
  std::size_t max_idle_;
  int connect_timeout_ms_;
  Poco::Net::Context::Ptr tls_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Poco::Net::HTTPClientSession>> idle_;
};

}  // namespace modelgw::upstream
