// Accepts connections on a listening socket and serves each on its own
// thread, with a cap on how many are open at once. Both modes use it.
#pragma once

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/StreamSocket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "runtime.h"

namespace fake_proxy {

class ConnectionServer {
 public:
  using Handler = std::function<void(Poco::Net::StreamSocket)>;

  ConnectionServer(Poco::Net::ServerSocket listener, Runtime& runtime, int maxConnections, Handler handler);
  ~ConnectionServer();
  ConnectionServer(const ConnectionServer&) = delete;
  ConnectionServer& operator=(const ConnectionServer&) = delete;

  void start();
  // Stops accepting, shuts every open socket down and waits up to `grace`
  // for the handlers to return. False if some did not: they are detached,
  // and the caller should leave with _exit().
  bool stop(std::chrono::milliseconds grace);

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  void acceptLoop();
  void reapFinished();

  Poco::Net::ServerSocket listener_;
  Runtime& runtime_;
  const int maxConnections_;
  Handler handler_;
  std::thread acceptThread_;
  std::mutex mutex_;
  std::condition_variable finished_;
  int active_ = 0;
  std::list<Worker> workers_;  // only the accept thread and stop() touch it
  bool stopped_ = false;
};

}  // namespace fake_proxy
