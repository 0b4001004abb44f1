// State shared by every connection of one fake_proxy process: the stop flag,
// the registry of open sockets (so a stop can wake blocked threads) and the
// idle timeout that bounds every wait.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>

namespace fake_proxy {

// Every socket a connection thread blocks on is registered here, so stop()
// can ::shutdown() them from another thread: that is the one way to wake a
// thread blocked inside OpenSSL or a blocking send.
class SocketRegistry {
 public:
  void add(int fd);
  void remove(int fd);
  // Shuts down every registered socket, and every socket added later.
  void shutdownAll();

 private:
  std::mutex mutex_;
  std::set<int> fds_;
  bool closed_ = false;
};

struct Runtime {
  std::atomic<bool> stopping{false};
  SocketRegistry sockets;
  std::chrono::milliseconds idleTimeout{std::chrono::seconds(60)};
};

}  // namespace fake_proxy
