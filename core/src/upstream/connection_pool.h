// Keep-alive HTTP(S) connections to one upstream host, reused across requests
// so the hot path pays for a TCP (and TLS) handshake only when none is idle.
// At most max_connections are open at once, busy or idle; a request that finds
// them all busy waits for one, up to the connect timeout.
#pragma once

#include "upstream/proxy.h"
#include "upstream/upstream_url.h"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace modelgw::upstream {

struct PoolOptions {
  int max_connections = 256;
  int connect_timeout_ms = 5000;
  std::string ca_file;                 // extra trusted CAs (PEM); the system store is always used
  std::optional<ProxySettings> proxy;  // HTTP proxy; HTTPS is tunnelled with CONNECT
};

class ConnectionPool {
 public:
  ConnectionPool(UpstreamUrl url, PoolOptions options);

  // A session ready to send, counted as open until handed back with release()
  // or discard(). `reused` says whether it served a request before (the server
  // may have closed it while idle). Null when every connection stayed busy
  // until `deadline`.
  std::unique_ptr<Poco::Net::HTTPClientSession> acquire(bool& reused,
                                                        std::chrono::steady_clock::time_point deadline);
  // A session whose response was read to the end: kept for the next request.
  void release(std::unique_ptr<Poco::Net::HTTPClientSession> session);
  // A session that must not be reused (error, abort): closed.
  void discard(std::unique_ptr<Poco::Net::HTTPClientSession> session);

  const UpstreamUrl& url() const { return url_; }
  std::chrono::milliseconds connect_timeout() const {
    return std::chrono::milliseconds(options_.connect_timeout_ms);
  }
  int max_connections() const { return options_.max_connections; }
  int open_connections() const;

 private:
  std::unique_ptr<Poco::Net::HTTPClientSession> connect_new() const;
  void give_back_slot();

  UpstreamUrl url_;
  PoolOptions options_;
  Poco::Net::Context::Ptr tls_;
  mutable std::mutex mutex_;
  std::condition_variable slot_freed_;
  int open_ = 0;  // sessions handed out plus idle ones
  std::vector<std::unique_ptr<Poco::Net::HTTPClientSession>> idle_;
};

}  // namespace modelgw::upstream
