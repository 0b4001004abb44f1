// Open-loop load at a fixed rate: request i is due at start + i / rate,
// whatever happened to the ones before it. W worker threads, each with one
// keep-alive connection, take every W-th slot. Latency runs from the slot's
// due time (not from when it was actually sent) to the last byte of the
// answer, so a slow server cannot hide its queueing by slowing the client
// down (no coordinated omission).
#pragma once

#include "stats.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace bench {

struct OpenLoopOptions {
  std::uint16_t port = 0;
  std::string request;  // complete HTTP/1.1 request bytes
  double rate = 200;    // requests per second
  double warmup_s = 1;  // slots in the warm-up are sent but not recorded
  double duration_s = 10;
  int workers = 8;  // in flight at most; a slot whose worker is still busy is sent late (and counted late)
  int timeout_ms = 5000;
  const std::atomic<bool>* interrupted = nullptr;
};

struct OpenLoopResult {
  double rate = 0;
  std::uint64_t scheduled = 0;  // slots in the measured window
  std::uint64_t ok = 0;         // answered 200
  std::uint64_t errors = 0;     // non-200, I/O errors and timeouts
  std::uint64_t unsent = 0;     // slots never sent: their worker was still busy when the window closed
  std::map<std::string, std::uint64_t> error_reasons;  // up to 8 distinct reasons
  LatencySummary latency;                              // of the ok ones, from due time, in us
};

OpenLoopResult run_open_loop(const OpenLoopOptions& options);

}  // namespace bench
