#include "open_loop.h"

#include "http_connection.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxOpenLoopReasons = 8;

struct WorkerOut {
  std::vector<std::int64_t> latencies_us;
  std::uint64_t scheduled = 0;
  std::uint64_t errors = 0;
  std::uint64_t unsent = 0;
  std::map<std::string, std::uint64_t> reasons;
};

void worker(const OpenLoopOptions& o, int index, Clock::time_point start, WorkerOut& out) {
  // Wake up within a microsecond of each due time rather than the default
  // 50 us slack, which would add to every latency (the same for every target).
  ::prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  HttpConnection conn(o.port, o.timeout_ms);
  const auto period = std::chrono::duration<double>(1.0 / o.rate);
  const auto warmup_end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup_s));
  const auto end =
      warmup_end + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s));
  for (std::uint64_t slot = static_cast<std::uint64_t>(index);;
       slot += static_cast<std::uint64_t>(o.workers)) {
    const auto due = start + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(slot));
    if (due >= end) break;
    const bool measured = due >= warmup_end;
    if (measured) ++out.scheduled;
    if (Clock::now() >= end || (o.interrupted != nullptr && o.interrupted->load())) {
      if (measured) ++out.unsent;
      continue;
    }
    // Sleep to just before the due time, then spin: a sleeping thread wakes up
    // 50-300 us late on a busy machine, which would add noise to every sample.
    std::this_thread::sleep_until(due - std::chrono::microseconds(300));
    while (Clock::now() < due) {
    }
    std::string reason;
    try {
      const int status = conn.exchange(o.request);
      if (status != 200) reason = "HTTP " + std::to_string(status) + ": " + conn.body().substr(0, 120);
    } catch (const HttpError& e) {
      reason = e.what();
    }
    const auto done = Clock::now();
    if (!measured) continue;
    if (!reason.empty()) {
      ++out.errors;
      if (out.reasons.size() < kMaxOpenLoopReasons || out.reasons.count(reason) != 0) ++out.reasons[reason];
      continue;
    }
    out.latencies_us.push_back(std::chrono::duration_cast<std::chrono::microseconds>(done - due).count());
  }
}

}  // namespace

OpenLoopResult run_open_loop(const OpenLoopOptions& o) {
  const int n = std::max(1, o.workers);
  OpenLoopOptions opts = o;
  opts.workers = n;
  opts.rate = std::max(0.1, o.rate);
  std::vector<WorkerOut> outs(static_cast<std::size_t>(n));
  const auto start = Clock::now() + std::chrono::milliseconds(50);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back(worker, std::cref(opts), i, start, std::ref(outs[static_cast<std::size_t>(i)]));
  }
  for (auto& t : threads) t.join();
  OpenLoopResult r;
  r.rate = opts.rate;
  std::vector<std::int64_t> all;
  for (auto& w : outs) {
    all.insert(all.end(), w.latencies_us.begin(), w.latencies_us.end());
    r.scheduled += w.scheduled;
    r.errors += w.errors;
    r.unsent += w.unsent;
    for (const auto& [reason, count] : w.reasons) {
      if (r.error_reasons.size() < kMaxOpenLoopReasons || r.error_reasons.count(reason) != 0)
        r.error_reasons[reason] += count;
    }
  }
  r.ok = all.size();
  r.latency = summarize(all);
  return r;
}

}  // namespace bench
