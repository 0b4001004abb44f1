#include "callers.h"

#include <algorithm>
#include <exception>
#include <latch>
#include <mutex>
#include <thread>

namespace storage_scale {

CallerRun run_callers(int instances, int threads, int per_thread, const Request& request) {
  const int total = instances * threads;
  std::vector<Samples> per(static_cast<std::size_t>(total));
  std::latch ready(total + 1);
  std::mutex failure_mutex;
  std::exception_ptr failure;
  std::vector<std::thread> pool;
  for (int n = 0; n < total; ++n) {
    pool.emplace_back([&, n] {
      const int instance = n / threads;
      const int thread = n % threads;
      auto& out = per[static_cast<std::size_t>(n)];
      out.step.reserve(static_cast<std::size_t>(per_thread));
      modelgw::net::asio::io_context io;
      modelgw::net::asio::co_spawn(
          io,
          [&]() -> modelgw::net::Task<void> {
            for (int i = 0; i < per_thread; ++i) co_await request(instance, thread, i, out);
          },
          [&](std::exception_ptr e) {
            if (!e) return;
            std::lock_guard lock(failure_mutex);
            if (!failure) failure = e;
          });
      ready.arrive_and_wait();
      io.run();
    });
  }
  ready.arrive_and_wait();
  const auto start = Clock::now();
  for (auto& t : pool) t.join();
  CallerRun run;
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (failure) std::rethrow_exception(failure);
  for (auto& s : per) {
    run.samples.step.insert(run.samples.step.end(), s.step.begin(), s.step.end());
    run.samples.after.insert(run.samples.after.end(), s.after.begin(), s.after.end());
    if (run.samples.refused == 0) run.samples.first_refusal = s.first_refusal;
    run.samples.refused += s.refused;
  }
  run.requests = static_cast<std::int64_t>(total) * per_thread;
  return run;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace storage_scale
