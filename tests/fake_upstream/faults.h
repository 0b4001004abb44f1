// Fault directives carried in the request's `model` string, e.g.
// "gpt-4o-mini+status=429+retry_after=2". Tests pick a failure per request
// this way, so one fake server serves every scenario concurrently.
// README.md lists each directive and the order in which they apply.
#pragma once

#include <string>
#include <string_view>

namespace fake_upstream {

struct Faults {
  // -1 means "not given" for every number below.
  int status = -1;              // status=N, 400..599
  int retryAfter = -1;          // retry_after=S
  int delayMs = -1;             // delay_ms=N, before the status line
  int cutAfter = -1;            // cut_after=N
  int chunkDelayMs = -1;        // chunk_delay_ms=N
  int words = -1;               // words=N
  int floodBytes = -1;          // flood_bytes=N: streams relay at least N bytes of deltas
  int longLine = -1;            // long_line=N: streams carry one data line of N bytes
  bool quota = false;           // 429 insufficient_quota
  bool context = false;         // 400 context_length_exceeded
  bool html = false;            // 502 text/html page
  bool garbage = false;         // 200 with a truncated JSON body
  bool error200 = false;        // 200 with an error object as body
  bool split = false;           // SSE in 1..7 byte fragments with CRLF
  bool noUsage = false;         // never send usage
  bool byteTokens = false;      // prompt tokens: 4 + bytes per message, a byte-level tokenizer's worst case
  bool comments = false;        // SSE comment blocks between events (and Anthropic pings)
  bool interimForever = false;  // 100 Continue forever, never a final answer
  bool bothLengths = false;     // Content-Length and Transfer-Encoding together
};

struct ParsedModel {
  std::string_view model;  // the part before the first '+', echoed back
  Faults faults;
  std::string error;  // non-empty: a directive was unknown or malformed
};

// Never throws; problems are reported in ParsedModel::error so the caller can
// answer 400 naming the bad directive. The returned views point into `model`.
ParsedModel parseModel(std::string_view model);

}  // namespace fake_upstream
