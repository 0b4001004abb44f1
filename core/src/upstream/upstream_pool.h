// Keep-alive connections to one upstream for the event-driven engine. Idle
// connections are kept per event loop (a connection is only ever used on the
// loop that opened it); the count of open connections, busy or idle on every
// loop, is shared and capped by max_connections. A request that finds none
// free waits (a timer, woken when a slot frees) up to the connect timeout and
// then fails as busy. Thread-safe: every loop shares one pool per provider.
//
// Destroy the pool before the event loops' io_contexts: it holds their idle
// sockets.
#pragma once

#include "net/asio.h"
#include "net/cancel_signal.h"
#include "upstream/proxy.h"
#include "upstream/upstream_url.h"

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace boost::asio::ssl {
class context;
}

namespace modelgw::upstream {

class UpstreamConnection;

struct PoolSettings {
  int max_connections = 256;
  int connect_timeout_ms = 5000;
  std::string ca_file;                 // extra trusted CAs (PEM); the system store is always used
  std::optional<ProxySettings> proxy;  // HTTP proxy; HTTPS is tunnelled with CONNECT
};

class UpstreamPool {
 public:
  // Builds the TLS context for an https upstream (system CAs plus ca_file,
  // TLS 1.2 or later, peer and host-name verification). Throws
  // std::runtime_error when ca_file cannot be loaded.
  UpstreamPool(UpstreamUrl url, PoolSettings settings);
  ~UpstreamPool();
  UpstreamPool(const UpstreamPool&) = delete;
  UpstreamPool& operator=(const UpstreamPool&) = delete;

  const UpstreamUrl& url() const { return url_; }
  std::chrono::milliseconds connect_timeout() const {
    return std::chrono::milliseconds(settings_.connect_timeout_ms);
  }
  int max_connections() const { return settings_.max_connections; }
  // Busy plus idle, on every loop.
  int open_connections() const;

  // --- for UpstreamCall ---------------------------------------------------------
  // A connection on the caller's loop: an idle one (unless `fresh`), else a new
  // one once a slot is free. Throws UpstreamFailure: busy after the connect
  // timeout without a slot, connect when it cannot be opened in time, cancelled
  // when `cancel` fires.
  net::Task<std::unique_ptr<UpstreamConnection>> acquire(net::CancelSignal* cancel, bool fresh);
  // A connection whose response was read to its end: idle on its loop.
  void release(std::unique_ptr<UpstreamConnection> connection);
  // A connection that must not serve again: closed, its slot freed.
  void discard(std::unique_ptr<UpstreamConnection> connection);

  // At shutdown, once the event loops have stopped and before their
  // io_contexts are destroyed: closes every idle connection (a socket must
  // not outlive its io_context), and from now on closes what is released.
  void close_all();
  // When a configuration reload retires the pool while the event loops run:
  // every idle connection is closed on its own loop (posted there), and from
  // now on what is released is closed. The pool may be destroyed at once.
  void retire_idle();

  // How requests are written: the target's prefix before base_path + path
  // ("" for origin-form; "http://host:port" for absolute-form through a proxy),
  // the Host header's value, and the Proxy-Authorization value ("" for none).
  const std::string& target_prefix() const { return target_prefix_; }
  const std::string& host_header() const { return host_header_; }
  const std::string& proxy_authorization() const { return proxy_authorization_; }
  // "host:port" for messages (never a credential).
  const std::string& where() const { return where_; }

 private:
  struct Waiter;
  using Idle = std::vector<std::unique_ptr<UpstreamConnection>>;

  net::Task<std::unique_ptr<UpstreamConnection>> connect(net::CancelSignal* cancel);
  std::unique_ptr<UpstreamConnection> take_any_idle_locked(const void* prefer_loop);
  void give_back_slot();
  void wake_one_locked(const void* prefer_loop);
  static void retire(std::unique_ptr<UpstreamConnection> connection, const void* current_loop);

  UpstreamUrl url_;
  PoolSettings settings_;
  std::unique_ptr<boost::asio::ssl::context> tls_;
  std::string target_prefix_;
  std::string host_header_;
  std::string proxy_authorization_;
  std::string connect_request_;  // the CONNECT head for https through a proxy
  std::string where_;

  mutable std::mutex mutex_;
  bool closed_ = false;
  int open_ = 0;
  std::unordered_map<const void*, Idle> idle_;  // by loop
  std::deque<std::shared_ptr<Waiter>> waiters_;
};

}  // namespace modelgw::upstream
