// The comparison scenarios: each runs against a proxy target (nginx -> mock,
// then modelgw -> mock) in the same run, so every figure can be read as a
// ratio of the two. See README.md, "Scenarios".
#pragma once

#include "attacker.h"
#include "load_generator.h"
#include "open_loop.h"
#include "report.h"
#include "sse_holder.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace bench {

// Where a scenario sends its requests, and whose process it samples.
struct Target {
  std::string name;  // "nginx", "modelgw", "mock"
  std::uint16_t port = 0;
  pid_t pid = -1;         // the proxy process (CPU, RSS); -1 for none
  std::string bearer;     // API key the target accepts
  std::string sse_model;  // model of the SSE scenario's request (an alias on modelgw)
  std::string headers;    // more header lines of (a)'s and (b)'s requests ("Name: value\r\n" each)
};

struct ScenarioSettings {
  // (a) and (b) are run this many times, the proxies in turn (paired_rounds.h).
  int rounds = 1;
  // (a) saturation: closed loop, one epoll thread (as wrk -t1).
  int concurrency = 64;
  double warmup_s = 2;
  double duration_s = 10;
  int request_timeout_ms = 10000;
  // (b) latency: open loop at a fixed rate.
  double rate = 200;
  double latency_warmup_s = 1;
  double latency_duration_s = 10;
  // (c) SSE streams.
  int sse_streams = 10000;
  double sse_open_rate = 2500;
  int sse_interval_ms = 2000;
  int sse_events = 5;  // content events per stream (then finish, usage, [DONE], each one interval later)
  // (d) attacker.
  int attackers = 10000;
  double attack_open_rate = 5000;
  double attack_rate = 200;  // the normal client's requests per second
  double attack_duration_s = 10;
  int attack_timeout_ms = 5000;
};

// (a) CPU per request of the target's process at saturation and max RPS.
// With `unique_header` set (e.g. "Idempotency-Key"), every request carries
// that header with a value of its own.
PassResult run_saturation(const ScenarioSettings& s, const Target& t, const std::string& body,
                          pid_t upstream_pid, const std::atomic<bool>* interrupted,
                          const std::string& unique_header = {});

// The closed-loop pass behind (a) and the legacy direct/gateway comparison:
// samples the CPU time of `proxy_pid` (if > 0) and `upstream_pid` over the window.
PassResult run_pass(std::uint16_t port, const std::string& request, int concurrency, double warmup_s,
                    double duration_s, int timeout_ms, pid_t proxy_pid, pid_t upstream_pid,
                    const std::atomic<bool>* interrupted, const std::string& unique_header = {});

// What a scenario outside main.cpp needs of the run around it.
struct ScenarioHooks {
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(const std::string&)> progress;  // one line to stderr
  // After each pass: throws when modelgw died during it, then lets the
  // pass's sockets close before the next one starts.
  std::function<void()> after_pass;
};

// (b) latency at a fixed rate, open loop.
OpenLoopResult run_latency(const ScenarioSettings& s, const Target& t, const std::string& body,
                           const std::atomic<bool>* interrupted);

struct SseScenario {
  StreamResult result;
  long rss_before_kib = 0;   // the target's VmRSS before the first stream was opened
  long rss_at_peak_kib = 0;  // its VmRSS when the most streams were open
  int open_at_peak = 0;      // streams open at that sample
  long threads_peak = 0;
  double cpu_s = 0;  // the target's CPU time over the phase
  double rss_per_stream_kib() const {
    return open_at_peak > 0 ? static_cast<double>(rss_at_peak_kib - rss_before_kib) / open_at_peak : -1;
  }
  bool all_completed() const { return result.requested > 0 && result.completed == result.requested; }
};

// Which API the streams of run_sse ask: POST /v1/chat/completions, or
// POST /v1/responses (modelgw only; `store: false`).
enum class StreamApi { chat, responses };

// (c) N streams opened at a rate, one event every interval each.
SseScenario run_sse(const ScenarioSettings& s, const Target& t, const std::atomic<bool>* interrupted,
                    StreamApi api = StreamApi::chat);

struct AttackScenario {
  AttackStats attack;          // at the end of the measured window
  int open_when_measured = 0;  // attacker connections open when the client started
  OpenLoopResult client;       // the normal client's requests meanwhile
  long rss_before_kib = 0;
  long rss_peak_kib = 0;
};

// (d) K idle/trickling connections held open while a normal client measures latency.
AttackScenario run_attack(const ScenarioSettings& s, const Target& t, const std::string& body,
                          const std::atomic<bool>* interrupted);

}  // namespace bench
