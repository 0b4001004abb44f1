#include "net/event_loops.h"

#include "util/thread_name.h"

#include <spdlog/spdlog.h>

#include <string>

namespace modelgw::net {

EventLoops::EventLoops(int count) {
  std::size_t n = count > 0 ? static_cast<std::size_t>(count) : std::thread::hardware_concurrency();
  if (n == 0) n = 1;
  for (std::size_t i = 0; i < n; ++i) {
    // Concurrency hint 1: each context is run by exactly one thread, so Asio
    // can skip its internal locking.
    loops_.push_back(std::make_unique<asio::io_context>(1));
    work_.emplace_back(asio::make_work_guard(*loops_.back()));
  }
}

EventLoops::~EventLoops() {
  stop();
}

void EventLoops::start() {
  if (!threads_.empty()) return;
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    threads_.emplace_back([ctx = loops_[i].get(), i] {
      util::set_thread_name("mgw-loop-" + std::to_string(i));
      // Bounded by stop(): run() returns once the context is stopped.
      while (!ctx->stopped()) {
        try {
          ctx->run();
        } catch (const std::exception& e) {
          // A handler let an exception escape: log it and keep the loop alive.
          spdlog::error("event loop: unhandled exception: {}", e.what());
        }
      }
    });
  }
}

void EventLoops::stop() {
  for (auto& w : work_) w.reset();
  for (auto& loop : loops_) loop->stop();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

asio::io_context& EventLoops::next() {
  return *loops_[next_.fetch_add(1, std::memory_order_relaxed) % loops_.size()];
}

}  // namespace modelgw::net
