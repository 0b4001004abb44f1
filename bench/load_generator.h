// Closed-loop load: C keep-alive connections, each sending the same request
// back to back for a warm-up and then a measured window, driven by one epoll
// thread (or a few) as wrk drives them: a lean client, so the proxy measured
// is not starved of the cores it shares with it (see README.md, "The nginx
// baseline").
#pragma once

#include "stats.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace bench {

struct LoadOptions {
  std::uint16_t port = 0;
  std::string request;   // complete HTTP/1.1 request bytes
  int concurrency = 64;  // connections, each with one request in flight
  int threads = 1;       // epoll threads the connections are spread over
  // When set (e.g. "Idempotency-Key"), every request carries this header
  // with a value no other request of any run has: the request bytes are then
  // built per request; without it the same bytes are sent each time.
  std::string unique_header;
  double warmup_s = 2;
  double duration_s = 10;
  int timeout_ms = 10000;  // per socket operation
  // Called from the coordinating thread when the measured window opens and
  // closes (e.g. to sample process CPU time).
  std::function<void()> on_measure_start;
  std::function<void()> on_measure_end;
  const std::atomic<bool>* interrupted = nullptr;  // checked between requests
};

struct LoadResult {
  int concurrency = 0;
  double window_s = 0;                // length of the measured window
  std::uint64_t warmup_requests = 0;  // all requests started during warm-up
  std::uint64_t warmup_errors = 0;
  std::uint64_t requests = 0;  // answered 200 within the window (these are the latency samples)
  std::uint64_t errors = 0;    // started within the window and failed: non-200 or I/O error
  std::map<std::string, std::uint64_t> error_reasons;  // up to 8 distinct reasons
  double rps = 0;                                      // requests / window_s
  LatencySummary latency;
};

LoadResult run_load(const LoadOptions& options);

}  // namespace bench
