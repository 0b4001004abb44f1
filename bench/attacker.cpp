#include "attacker.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <deque>
#include <string_view>
#include <vector>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// What a trickling connection sends, one byte at a time: a request head that
// never ends (after the prefix, one more 'a' of a header value each time).
constexpr std::string_view kTricklePrefix =
    "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Trickle: ";

enum class State { closed, connecting, open };

struct Conn {
  int fd = -1;
  State state = State::closed;
  std::size_t sent = 0;
  Clock::time_point retry_at{};
};

}  // namespace

Attacker::Attacker(const AttackOptions& o) : o_(o) {
  thread_ = std::thread([this] { run(); });
}

Attacker::~Attacker() {
  stop();
}

int Attacker::wait_open(double timeout_s) const {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  while (Clock::now() < deadline && open_now_.load() < o_.connections) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return open_now_.load();
}

AttackStats Attacker::stats() const {
  AttackStats s;
  s.requested = o_.connections;
  s.open_now = open_now_.load();
  s.peak_open = peak_open_.load();
  s.closed_by_server = closed_by_server_.load();
  s.connect_failures = connect_failures_.load();
  s.bytes_trickled = bytes_trickled_.load();
  return s;
}

AttackStats Attacker::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  return stats();
}

void Attacker::run() {
  const int epfd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) {
    connect_failures_ = o_.connections;
    return;
  }
  std::vector<Conn> conns(static_cast<std::size_t>(std::max(0, o_.connections)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(o_.port);

  int open = 0;
  const auto set_open = [&](int delta) {
    open += delta;
    open_now_ = open;
    if (open > peak_open_.load()) peak_open_ = open;
  };
  std::deque<std::size_t>* reopen = nullptr;  // set below, once the queue exists
  const auto close_conn = [&](std::size_t i, bool by_server, int retry_ms) {
    Conn& c = conns[i];
    if (c.fd >= 0) ::close(c.fd);
    if (c.state == State::open) set_open(-1);
    if (by_server) ++closed_by_server_;
    c = Conn{};
    c.retry_at = Clock::now() + std::chrono::milliseconds(retry_ms);
    reopen->push_back(i);
  };
  const auto open_conn = [&](std::size_t i) {
    Conn& c = conns[i];
    c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
      ++connect_failures_;
      c.retry_at = Clock::now() + std::chrono::milliseconds(100);
      return;
    }
    if (::connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
      ++connect_failures_;
      ::close(c.fd);
      c.fd = -1;
      c.retry_at = Clock::now() + std::chrono::milliseconds(100);
      return;
    }
    c.state = State::connecting;
    epoll_event ev{};
    ev.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = i;
    ::epoll_ctl(epfd, EPOLL_CTL_ADD, c.fd, &ev);
  };

  // Opening is paced: one connection per 1/open_rate s, reconnects included,
  // from a queue of closed connections (oldest first).
  const double per_open_s = 1.0 / std::max(1.0, o_.open_rate);
  const auto begin = Clock::now();
  long opened = 0;
  std::deque<std::size_t> to_open;
  for (std::size_t i = 0; i < conns.size(); ++i) to_open.push_back(i);
  reopen = &to_open;
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.trickle_interval_s));
  constexpr int kSlices = 100;  // the trickling connections are spread over the interval
  const auto slice = interval / kSlices;
  auto next_slice = Clock::now() + slice;
  int slice_index = 0;
  std::vector<epoll_event> events(1024);
  char sink[4096];

  while (!stop_.load()) {
    const auto now = Clock::now();
    const long budget = static_cast<long>(std::chrono::duration<double>(now - begin).count() / per_open_s);
    while (opened < budget && !to_open.empty() && conns[to_open.front()].retry_at <= now) {
      open_conn(to_open.front());
      if (conns[to_open.front()].state == State::closed) to_open.push_back(to_open.front());
      to_open.pop_front();
      ++opened;
    }
    if (to_open.empty()) opened = budget;  // no credit builds up while everything is open

    if (now >= next_slice) {
      next_slice += slice;
      for (std::size_t i = static_cast<std::size_t>(slice_index); i < conns.size(); i += kSlices) {
        Conn& c = conns[i];
        if (i % 2 == 0 || c.state != State::open) continue;  // even ones stay idle
        const char byte = c.sent < kTricklePrefix.size() ? kTricklePrefix[c.sent] : 'a';
        if (::send(c.fd, &byte, 1, MSG_NOSIGNAL) == 1) {
          ++c.sent;
          ++bytes_trickled_;
        }
      }
      slice_index = (slice_index + 1) % kSlices;
    }

    const int n = ::epoll_wait(epfd, events.data(), static_cast<int>(events.size()), 1);
    for (int k = 0; k < n; ++k) {
      const auto& ev = events[static_cast<std::size_t>(k)];
      const auto i = static_cast<std::size_t>(ev.data.u64);
      Conn& c = conns[i];
      if (c.fd < 0) continue;
      if (c.state == State::connecting) {
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0 || (ev.events & (EPOLLERR | EPOLLHUP)) != 0) {
          ++connect_failures_;
          close_conn(i, false, 100);
          continue;
        }
        c.state = State::open;
        set_open(1);
        epoll_event mod{};
        mod.events = EPOLLIN | EPOLLRDHUP;
        mod.data.u64 = ev.data.u64;
        ::epoll_ctl(epfd, EPOLL_CTL_MOD, c.fd, &mod);
        if ((ev.events & (EPOLLIN | EPOLLRDHUP)) == 0) continue;
      }
      // The server answered (e.g. 408) or closed: read what there is; on EOF
      // or an error the connection is gone and is opened again.
      const ssize_t got = ::recv(c.fd, sink, sizeof sink, 0);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        close_conn(i, true, 0);
      }
    }
  }
  for (auto& c : conns) {
    if (c.fd >= 0) ::close(c.fd);
  }
  open_now_ = 0;
  ::close(epfd);
}

}  // namespace bench
