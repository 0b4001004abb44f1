// The fixed set of event loops: one io_context per thread, each connection
// pinned to one for its whole life, so the objects of a connection (its
// socket, timers, upstream call) are only ever touched by one thread and need
// no locks.
#pragma once

#include "net/asio.h"

#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace modelgw::net {

class EventLoops {
 public:
  // `count` 0: one loop per core.
  explicit EventLoops(int count);
  ~EventLoops();
  EventLoops(const EventLoops&) = delete;
  EventLoops& operator=(const EventLoops&) = delete;

  // Starts one thread per loop. The loops run until stop().
  void start();
  // Makes every loop return (pending handlers are dropped), then joins the threads.
  void stop();

  std::size_t size() const { return loops_.size(); }
  asio::io_context& at(std::size_t i) { return *loops_[i]; }
  // Round robin, for new connections.
  asio::io_context& next();

 private:
  std::vector<std::unique_ptr<asio::io_context>> loops_;
  std::vector<std::optional<asio::executor_work_guard<asio::io_context::executor_type>>> work_;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> next_{0};
};

}  // namespace modelgw::net
