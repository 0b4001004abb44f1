#include "upstream/upstream_pool.h"

#include "upstream/failure.h"
#include "upstream/upstream_connect.h"
#include "upstream/upstream_connection.h"

#include <boost/asio/ssl.hpp>

#include <openssl/ssl.h>

#include <algorithm>
#include <stdexcept>

namespace modelgw::upstream {
namespace {

namespace asio = net::asio;
using Clock = std::chrono::steady_clock;

std::string base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += kAlphabet[v >> 6 & 63];
    out += kAlphabet[v & 63];
  }
  if (i < in.size()) {
    const bool two = i + 1 < in.size();
    const unsigned v =
        static_cast<unsigned char>(in[i]) << 16 | (two ? static_cast<unsigned char>(in[i + 1]) << 8 : 0);
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += two ? kAlphabet[v >> 6 & 63] : '=';
    out += '=';
  }
  return out;
}

// "host" or "[v6]", with ":port" unless it is the scheme's default.
std::string authority(const std::string& host, std::uint16_t port, std::uint16_t default_port) {
  std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (port != default_port) out += ":" + std::to_string(port);
  return out;
}

const void* loop_of(const net::Executor& executor) {
  return &asio::query(executor, asio::execution::context);
}

}  // namespace

// A request waiting for a slot, on its own loop. Woken by cancelling its timer
// from that loop (posted there by whichever thread freed the slot).
struct UpstreamPool::Waiter {
  explicit Waiter(const net::Executor& executor)
      : executor(executor), loop(loop_of(executor)), timer(executor) {}
  net::Executor executor;
  const void* loop;
  net::SteadyTimer timer;
  bool woken = false;  // under the pool's mutex
};

UpstreamPool::UpstreamPool(UpstreamUrl url, PoolSettings settings)
    : url_(std::move(url)), settings_(std::move(settings)) {
  if (settings_.max_connections < 1) settings_.max_connections = 1;
  const std::uint16_t default_port = url_.https ? 443 : 80;
  host_header_ = authority(url_.host, url_.port, default_port);
  where_ = authority(url_.host, url_.port, 0);
  if (settings_.proxy) {
    const auto& proxy = *settings_.proxy;
    const std::string credentials = proxy.username.empty() && proxy.password.empty()
                                        ? std::string()
                                        : "Basic " + base64(proxy.username + ":" + proxy.password);
    if (url_.https) {
      connect_request_ = "CONNECT " + where_ + " HTTP/1.1\r\nHost: " + where_ + "\r\n";
      if (!credentials.empty()) connect_request_ += "Proxy-Authorization: " + credentials + "\r\n";
      connect_request_ += "\r\n";
    } else {
      // Plain http through a proxy: absolute-form targets (RFC 9112 3.2.2),
      // the credentials on every request.
      target_prefix_ = "http://" + host_header_;
      proxy_authorization_ = credentials;
    }
  }
  if (url_.https) {
    tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(tls_->native_handle(), TLS1_2_VERSION);
    tls_->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_compression);
    tls_->set_default_verify_paths();
    if (!settings_.ca_file.empty()) {
      boost::system::error_code ec;
      tls_->load_verify_file(settings_.ca_file, ec);
      if (ec)
        throw std::runtime_error("cannot load the CA file '" + settings_.ca_file + "': " + ec.message());
    }
    tls_->set_verify_mode(asio::ssl::verify_peer);
  }
}

UpstreamPool::~UpstreamPool() = default;

int UpstreamPool::open_connections() const {
  std::lock_guard lock(mutex_);
  return open_;
}

net::Task<std::unique_ptr<UpstreamConnection>> UpstreamPool::acquire(net::CancelSignal* cancel, bool fresh) {
  const auto executor = co_await asio::this_coro::executor;
  const void* loop = loop_of(executor);
  const auto deadline = Clock::now() + connect_timeout();
  bool cancelled = false;
  std::shared_ptr<Waiter> waiter;
  net::ScopedSlot on_cancel(cancel, [&] {
    cancelled = true;
    if (waiter) waiter->timer.cancel();
  });
  // Bounded: every turn takes a connection, or a slot, or waits until the deadline.
  while (true) {
    if (cancelled)
      throw UpstreamFailure(FailureKind::cancelled, "the client hung up before " + where_ + " was reached");
    std::unique_ptr<UpstreamConnection> idle;
    std::unique_ptr<UpstreamConnection> victim;
    bool slot = false;
    {
      std::lock_guard lock(mutex_);
      auto& mine = idle_[loop];
      if (!fresh && !mine.empty()) {
        idle = std::move(mine.back());
        mine.pop_back();
      } else if (open_ < settings_.max_connections) {
        ++open_;  // counted before connecting, so concurrent callers respect the cap
        slot = true;
      } else if ((victim = take_any_idle_locked(loop))) {
        slot = true;  // an idle connection's slot, on whatever loop it was, is ours
      }
    }
    if (victim) retire(std::move(victim), loop);
    if (idle) {
      if (!idle->looks_closed()) co_return idle;
      // Closed by the server while idle: its slot serves a fresh connection.
      retire(std::move(idle), loop);
      slot = true;
    }
    if (slot) {
      ConnectPlan plan;
      plan.via_proxy = settings_.proxy.has_value();
      plan.host = plan.via_proxy ? settings_.proxy->host : url_.host;
      plan.port = plan.via_proxy ? settings_.proxy->port : url_.port;
      plan.tunnel_request = connect_request_;
      plan.tls_host = url_.https ? url_.host : std::string();
      plan.where = where_;
      plan.timeout = connect_timeout();
      std::unique_ptr<UpstreamConnection> opened;
      std::exception_ptr failure;
      try {
        opened = co_await open_connection(plan, tls_.get(), cancel);
      } catch (...) {
        failure = std::current_exception();
      }
      if (failure) {
        give_back_slot();
        std::rethrow_exception(failure);
      }
      co_return opened;
    }
    if (Clock::now() >= deadline) {
      throw UpstreamFailure(FailureKind::busy, "all " + std::to_string(settings_.max_connections) +
                                                   " connections to " + where_ +
                                                   " stayed busy for the connect timeout");
    }
    waiter = std::make_shared<Waiter>(executor);
    waiter->timer.expires_at(deadline);
    {
      std::lock_guard lock(mutex_);
      waiters_.push_back(waiter);
    }
    boost::system::error_code ignored;
    co_await waiter->timer.async_wait(asio::redirect_error(net::use_awaitable, ignored));
    {
      std::lock_guard lock(mutex_);
      const auto it = std::find(waiters_.begin(), waiters_.end(), waiter);
      if (it != waiters_.end()) waiters_.erase(it);
      // Woken but leaving: the slot it was woken for goes to the next waiter.
      if (waiter->woken && cancelled) wake_one_locked(nullptr);
    }
    waiter.reset();
  }
}

std::unique_ptr<UpstreamConnection> UpstreamPool::take_any_idle_locked(const void* prefer_loop) {
  if (auto it = idle_.find(prefer_loop); it != idle_.end() && !it->second.empty()) {
    auto c = std::move(it->second.back());
    it->second.pop_back();
    return c;
  }
  for (auto& [loop, list] : idle_) {
    if (list.empty()) continue;
    auto c = std::move(list.front());  // the oldest: the likeliest to be stale anyway
    list.erase(list.begin());
    return c;
  }
  return nullptr;
}

void UpstreamPool::retire(std::unique_ptr<UpstreamConnection> connection, const void* current_loop) {
  if (connection->loop() == current_loop) return;  // destroyed here, on its own loop
  // A socket is closed on the loop that owns it.
  auto executor = connection->executor();
  asio::post(executor, [c = std::shared_ptr<UpstreamConnection>(std::move(connection))] {});
}

void UpstreamPool::wake_one_locked(const void* prefer_loop) {
  if (waiters_.empty()) return;
  auto it = waiters_.begin();
  if (prefer_loop != nullptr) {
    const auto same =
        std::find_if(waiters_.begin(), waiters_.end(), [&](const auto& w) { return w->loop == prefer_loop; });
    if (same != waiters_.end()) it = same;
  }
  auto waiter = *it;
  waiters_.erase(it);
  waiter->woken = true;
  asio::post(waiter->executor, [waiter] { waiter->timer.cancel(); });
}

void UpstreamPool::give_back_slot() {
  std::lock_guard lock(mutex_);
  --open_;
  wake_one_locked(nullptr);
}

void UpstreamPool::release(std::unique_ptr<UpstreamConnection> connection) {
  if (!connection) return;
  if (!connection->socket().is_open()) return discard(std::move(connection));
  const void* loop = connection->loop();
  {
    std::lock_guard lock(mutex_);
    if (!closed_) {
      idle_[loop].push_back(std::move(connection));
      wake_one_locked(loop);  // best served by a waiter on the same loop
      return;
    }
  }
  discard(std::move(connection));
}

void UpstreamPool::close_all() {
  std::unordered_map<const void*, Idle> idle;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    idle.swap(idle_);
  }
  for (auto& [loop, connections] : idle) {
    for (auto& c : connections) discard(std::move(c));
  }
}

void UpstreamPool::retire_idle() {
  std::unordered_map<const void*, Idle> idle;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    idle.swap(idle_);
  }
  for (auto& [loop, connections] : idle) {
    for (auto& c : connections) retire(std::move(c), nullptr);
  }
}

void UpstreamPool::discard(std::unique_ptr<UpstreamConnection> connection) {
  if (!connection) return;
  connection->close();
  connection.reset();
  give_back_slot();
}

}  // namespace modelgw::upstream
