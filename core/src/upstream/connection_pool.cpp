#include "upstream/connection_pool.h"

#include <Poco/Net/HTTPSClientSession.h>

namespace modelgw::upstream {

ConnectionPool::ConnectionPool(UpstreamUrl url, int max_idle, int connect_timeout_ms)
    : url_(std::move(url)),
      max_idle_(static_cast<std::size_t>(max_idle)),
      connect_timeout_ms_(connect_timeout_ms) {
  if (url_.https) {
    // Verify the upstream's certificate chain against the system store and
    // its name against the host (extended verification is on by default).
    tls_ =
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", Poco::Net::Context::VERIFY_RELAXED, 9,
                               /*loadDefaultCAs=*/true);
  }
}

std::unique_ptr<Poco::Net::HTTPClientSession> ConnectionPool::connect_new() const {
  std::unique_ptr<Poco::Net::HTTPClientSession> s;
  if (url_.https) {
    s = std::make_unique<Poco::Net::HTTPSClientSession>(url_.host, url_.port, tls_);
  } else {
    s = std::make_unique<Poco::Net::HTTPClientSession>(url_.host, url_.port);
  }
  s->setKeepAlive(true);
  s->setTimeout(Poco::Timespan(Poco::Timespan::TimeDiff(connect_timeout_ms_) * 1000), s->getTimeout(),
                s->getTimeout());
  return s;
}

std::unique_ptr<Poco::Net::HTTPClientSession> ConnectionPool::acquire(bool& reused) {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto s = std::move(idle_.back());
      idle_.pop_back();
      reused = true;
      return s;
    }
  }
  reused = false;
  return connect_new();
}

void ConnectionPool::release(std::unique_ptr<Poco::Net::HTTPClientSession> session) {
  if (!session || !session->connected()) return;
  std::lock_guard lock(mutex_);
  if (idle_.size() < max_idle_) idle_.push_back(std::move(session));
}

}  // namespace modelgw::upstream
