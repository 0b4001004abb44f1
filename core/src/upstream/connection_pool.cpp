#include "upstream/connection_pool.h"

#include <Poco/Net/HTTPSClientSession.h>

namespace modelgw::upstream {

ConnectionPool::ConnectionPool(UpstreamUrl url, PoolOptions options)
    : url_(std::move(url)), options_(std::move(options)) {
  if (url_.https) {
    // Verify the upstream's certificate chain against the system store (plus
    // an operator's own CA file) and its name against the host.
    tls_ = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", options_.ca_file,
                                  Poco::Net::Context::VERIFY_RELAXED, 9, /*loadDefaultCAs=*/true);
  }
}

std::unique_ptr<Poco::Net::HTTPClientSession> ConnectionPool::connect_new() const {
  std::unique_ptr<Poco::Net::HTTPClientSession> s;
  if (url_.https) {
    s = std::make_unique<Poco::Net::HTTPSClientSession>(url_.host, url_.port, tls_);
  } else {
    s = std::make_unique<Poco::Net::HTTPClientSession>(url_.host, url_.port);
  }
  if (options_.proxy) upstream::use_proxy(*s, *options_.proxy);
  s->setKeepAlive(true);
  s->setTimeout(Poco::Timespan(Poco::Timespan::TimeDiff(options_.connect_timeout_ms) * 1000), s->getTimeout(),
                s->getTimeout());
  return s;
}

std::unique_ptr<Poco::Net::HTTPClientSession> ConnectionPool::acquire(
    bool& reused, std::chrono::steady_clock::time_point deadline) {
  {
    std::unique_lock lock(mutex_);
    if (!idle_.empty()) {
      auto s = std::move(idle_.back());
      idle_.pop_back();
      reused = true;
      return s;
    }
    if (!slot_freed_.wait_until(lock, deadline,
                                [this] { return !idle_.empty() || open_ < options_.max_connections; })) {
      return nullptr;
    }
    if (!idle_.empty()) {
      auto s = std::move(idle_.back());
      idle_.pop_back();
      reused = true;
      return s;
    }
    ++open_;  // counted before connecting, so concurrent callers respect the cap
  }
  reused = false;
  try {
    return connect_new();
  } catch (...) {
    give_back_slot();
    throw;
  }
}

void ConnectionPool::give_back_slot() {
  {
    std::lock_guard lock(mutex_);
    --open_;
  }
  slot_freed_.notify_one();
}

void ConnectionPool::release(std::unique_ptr<Poco::Net::HTTPClientSession> session) {
  if (!session) return;
  if (!session->connected()) return discard(std::move(session));
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(session));
  }
  slot_freed_.notify_one();
}

void ConnectionPool::discard(std::unique_ptr<Poco::Net::HTTPClientSession> session) {
  if (!session) return;
  try {
    session->abort();
  } catch (...) {  // closing a broken socket may fail again; nothing to do
  }
  session.reset();
  give_back_slot();
}

int ConnectionPool::open_connections() const {
  std::lock_guard lock(mutex_);
  return open_;
}

}  // namespace modelgw::upstream
