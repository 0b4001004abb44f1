#include "connection_server.h"

#include <Poco/Exception.h>
#include <poll.h>
#include <sys/socket.h>

#include <iostream>

namespace fake_proxy {
namespace {
constexpr int kAcceptPollMs = 100;
}  // namespace

ConnectionServer::ConnectionServer(Poco::Net::ServerSocket listener, Runtime& runtime, int maxConnections,
                                   Handler handler)
    : listener_(std::move(listener)),
      runtime_(runtime),
      maxConnections_(maxConnections),
      handler_(std::move(handler)) {}

ConnectionServer::~ConnectionServer() {
  stop(std::chrono::seconds(1));
}

void ConnectionServer::start() {
  acceptThread_ = std::thread([this] { acceptLoop(); });
}

void ConnectionServer::acceptLoop() {
  const int fd = listener_.impl()->sockfd();
  while (!runtime_.stopping.load()) {
    reapFinished();
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, kAcceptPollMs) <= 0 || runtime_.stopping.load()) continue;
    Poco::Net::StreamSocket socket;
    try {
      socket = listener_.acceptConnection();
    } catch (const Poco::Exception& e) {
      // EMFILE and friends: back off instead of spinning.
      if (!runtime_.stopping.load()) std::cerr << "fake_proxy: accept failed: " << e.displayText() << "\n";
      std::this_thread::sleep_for(std::chrono::milliseconds(kAcceptPollMs));
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      if (active_ >= maxConnections_) {
        socket.close();  // over the cap: refuse rather than queue without bound
        continue;
      }
      ++active_;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    try {
      workers_.push_back({std::thread([this, socket, done]() mutable {
                            try {
                              handler_(std::move(socket));
                            } catch (...) {
                              // Handlers catch what they expect; anything else
                              // still must not end the process.
                            }
                            done->store(true);
                            std::lock_guard lock(mutex_);
                            --active_;
                            finished_.notify_all();
                          }),
                          done});
    } catch (const std::system_error& e) {
      std::lock_guard lock(mutex_);
      --active_;
      std::cerr << "fake_proxy: cannot start a thread: " << e.what() << "\n";
    }
  }
}

void ConnectionServer::reapFinished() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

bool ConnectionServer::stop(std::chrono::milliseconds grace) {
  if (stopped_) return true;
  stopped_ = true;
  runtime_.stopping.store(true);
  if (acceptThread_.joinable()) {
    // On Linux this also wakes a thread blocked in accept().
    ::shutdown(listener_.impl()->sockfd(), SHUT_RDWR);
    acceptThread_.join();
  }
  runtime_.sockets.shutdownAll();
  bool allDone = false;
  {
    std::unique_lock lock(mutex_);
    allDone = finished_.wait_for(lock, grace, [this] { return active_ == 0; });
  }
  for (auto& w : workers_) {
    if (w.done->load()) {
      w.thread.join();
    } else {
      w.thread.detach();
    }
  }
  workers_.clear();
  try {
    listener_.close();
  } catch (const Poco::Exception&) {
  }
  return allDone;
}

}  // namespace fake_proxy
