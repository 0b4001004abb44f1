// Opens N streaming chat requests (at once, or at a given rate) over non-blocking raw sockets, holds
// them all open in one epoll loop, and checks that each one answers 200,
// delivers every chunk and ends with "data: [DONE]". Streams of the
// Responses API (POST /v1/responses) are read too: their text comes in
// response.output_text.delta events, and response.completed ends them.
#pragma once

#include "stats.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace bench {

struct StreamOptions {
  std::uint16_t port = 0;
  std::string request;  // complete HTTP/1.1 request bytes (a "stream": true chat or Responses request)
  int streams = 1000;
  std::string expected_content;  // the concatenated deltas every stream must deliver
  double open_rate = 0;          // new streams per second; 0: all at once
  double timeout_s = 60;         // bound on the whole phase; streams still open then are errors
  // Called about every 100 ms from the loop (sampling), with the number of
  // streams open at that moment (first event received, not yet finished).
  std::function<void(int open_now)> on_tick;
  const std::atomic<bool>* interrupted = nullptr;
};

struct StreamResult {
  int requested = 0;
  int connected = 0;                       // TCP connection established
  int opened = 0;                          // answered HTTP 200
  int first_event = 0;                     // received at least one SSE event
  int completed = 0;                       // every delta, then data: [DONE], then the end of the chunked body
  int errors = 0;                          // requested - completed
  std::map<std::string, int> error_kinds;  // kind -> count
  std::vector<std::string> error_samples;  // the first few errors in full
  int peak_open = 0;                       // max streams that had their first event and had not finished
  double time_to_open_all_s =
      -1;              // from the first connect until every stream had its first event; -1 if never
  double total_s = 0;  // whole phase
  LatencySummary first_event_latency;  // per stream: connect start to first event, microseconds
  LatencySummary duration;             // per completed stream: connect start to end, microseconds
};

StreamResult hold_streams(const StreamOptions& options);

}  // namespace bench
