#include "load_generator.h"

#include "http_connection.h"

#include <algorithm>
#include <chrono>
#include <latch>
#include <thread>
#include <vector>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxReasons = 8;

struct WorkerResult {
  std::vector<std::int64_t> latencies_us;
  std::uint64_t warmup_requests = 0;
  std::uint64_t warmup_errors = 0;
  std::uint64_t errors = 0;
  std::map<std::string, std::uint64_t> reasons;

  void note(const std::string& reason) {
    if (reasons.size() < kMaxReasons || reasons.count(reason) != 0) ++reasons[reason];
  }
};

std::string status_reason(int status, const std::string& body) {
  std::string excerpt = body.substr(0, 160);
  for (char& c : excerpt) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return "HTTP " + std::to_string(status) + ": " + excerpt;
}

void worker(const LoadOptions& o, std::latch& ready, const Clock::time_point& start_at,
            const Clock::time_point& warmup_end, const Clock::time_point& end, WorkerResult& out) {
  HttpConnection conn(o.port, o.timeout_ms);
  try {
    conn.connect();
  } catch (const HttpError& e) {
    ++out.warmup_errors;
    out.note(std::string("connect: ") + e.what());
  }
  out.latencies_us.reserve(1 << 16);
  ready.arrive_and_wait();  // everyone starts together; start_at is set by then
  std::this_thread::sleep_until(start_at);
  while (true) {
    const auto t0 = Clock::now();
    if (t0 >= end || (o.interrupted != nullptr && o.interrupted->load())) break;
    int status = 0;
    std::string reason;
    try {
      status = conn.exchange(o.request);
      if (status != 200) reason = status_reason(status, conn.body());
    } catch (const HttpError& e) {
      reason = e.what();
    }
    const auto t1 = Clock::now();
    const bool in_window = t0 >= warmup_end;
    if (!in_window) ++out.warmup_requests;
    if (!reason.empty()) {
      ++(in_window ? out.errors : out.warmup_errors);
      out.note(reason);
      if (status == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // no hot loop on refusals
      continue;
    }
    if (in_window && t1 <= end) {
      out.latencies_us.push_back(std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count());
    }
  }
}

}  // namespace

LoadResult run_load(const LoadOptions& o) {
  const int n = std::max(1, o.concurrency);
  std::vector<WorkerResult> results(static_cast<std::size_t>(n));
  std::latch ready(n + 1);
  Clock::time_point start_at;
  Clock::time_point warmup_end;
  Clock::time_point end;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    threads.emplace_back(worker, std::cref(o), std::ref(ready), std::cref(start_at), std::cref(warmup_end),
                         std::cref(end), std::ref(results[static_cast<std::size_t>(i)]));
  }
  // The times are written before the latch releases the workers, which
  // orders the writes before their reads.
  start_at = Clock::now() + std::chrono::milliseconds(20);
  warmup_end =
      start_at + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup_s));
  end = warmup_end + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s));
  ready.arrive_and_wait();

  // Sleeps until `t`; false if interrupted first.
  const auto wait_until = [&](Clock::time_point t) {
    while (Clock::now() < t) {
      if (o.interrupted != nullptr && o.interrupted->load()) return false;
      std::this_thread::sleep_for(std::min<Clock::duration>(t - Clock::now(), std::chrono::milliseconds(50)));
    }
    return true;
  };
  if (wait_until(warmup_end) && o.on_measure_start) o.on_measure_start();
  wait_until(end);
  const auto window_end = std::min(Clock::now(), end);
  if (o.on_measure_end) o.on_measure_end();
  for (auto& t : threads) t.join();  // each worker stops at `end` plus at most one request's timeout

  LoadResult r;
  r.concurrency = n;
  r.window_s = std::max(0.0, std::chrono::duration<double>(window_end - warmup_end).count());
  std::vector<std::int64_t> all;
  for (auto& w : results) {
    all.insert(all.end(), w.latencies_us.begin(), w.latencies_us.end());
    r.warmup_requests += w.warmup_requests;
    r.warmup_errors += w.warmup_errors;
    r.errors += w.errors;
    for (const auto& [reason, count] : w.reasons) {
      if (r.error_reasons.size() < kMaxReasons || r.error_reasons.count(reason) != 0) {
        r.error_reasons[reason] += count;
      }
    }
  }
  r.requests = all.size();
  r.rps = r.window_s > 0 ? static_cast<double>(r.requests) / r.window_s : 0;
  r.latency = summarize(all);
  return r;
}

}  // namespace bench
