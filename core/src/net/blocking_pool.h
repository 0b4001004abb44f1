// Threads for the work that blocks (storage hooks, keyset fetches, admin
// operations), so that it never runs on an event loop. `offload` runs a
// function there and resumes the calling coroutine on its own loop with the
// result (or the exception the function threw).
#pragma once

#include "net/asio.h"
#include "util/thread_name.h"

#include <exception>
#include <optional>
#include <string_view>
#include <type_traits>

namespace modelgw::net {

class BlockingPool {
 public:
  // `name`: what its threads are called (thread_name.h).
  explicit BlockingPool(int threads, std::string_view name = "mgw-blocking")
      : naming_(std::in_place, name), pool_(static_cast<std::size_t>(threads > 0 ? threads : 1)) {
    naming_.reset();  // the pool's threads are started: the caller's own name back
  }
  ~BlockingPool() { stop(); }
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  // Waits for queued work to finish, then joins the threads. Idempotent.
  void stop() { pool_.join(); }

  asio::thread_pool& pool() { return pool_; }

 private:
  // Set while pool_ starts its threads, which take the name (thread_name.h).
  std::optional<util::ScopedThreadName> naming_;
  asio::thread_pool pool_;
};

// Runs `f()` on the blocking pool; the caller's coroutine resumes on its own
// executor. Exceptions thrown by `f` are rethrown in the caller.
template <class F>
auto offload(BlockingPool& pool, F f) -> Task<std::invoke_result_t<F&>> {
  using R = std::invoke_result_t<F&>;
  if constexpr (std::is_void_v<R>) {
    co_await asio::co_spawn(
        pool.pool(),
        [&f]() -> asio::awaitable<void, asio::thread_pool::executor_type> {
          f();
          co_return;
        },
        use_awaitable);
  } else {
    co_return co_await asio::co_spawn(
        pool.pool(), [&f]() -> asio::awaitable<R, asio::thread_pool::executor_type> { co_return f(); },
        use_awaitable);
  }
}

}  // namespace modelgw::net
