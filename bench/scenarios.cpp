#include "scenarios.h"

#include "http_wire.h"
#include "process.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

namespace bench {
namespace {

std::string chat_request(const Target& t, const std::string& body) {
  return build_request("POST", "/v1/chat/completions", t.bearer, body, t.headers);
}

std::string expected_content(int words) {
  std::string s;
  for (int i = 0; i < words; ++i) s += (i ? " tok" : "tok") + std::to_string(i);
  return s;
}

}  // namespace

PassResult run_pass(std::uint16_t port, const std::string& request, int concurrency, double warmup_s,
                    double duration_s, int timeout_ms, pid_t proxy_pid, pid_t upstream_pid,
                    const std::atomic<bool>* interrupted, const std::string& unique_header) {
  ProcSample proxy_start, proxy_end, up_start, up_end;
  std::map<std::string, double> threads_start, threads_end;
  LoadOptions lo;
  lo.port = port;
  lo.request = request;
  lo.concurrency = concurrency;
  lo.warmup_s = warmup_s;
  lo.duration_s = duration_s;
  lo.timeout_ms = timeout_ms;
  lo.interrupted = interrupted;
  lo.unique_header = unique_header;
  lo.on_measure_start = [&] {
    if (proxy_pid > 0) proxy_start = sample_process(proxy_pid);
    if (proxy_pid > 0) threads_start = sample_thread_cpu(proxy_pid);
    if (upstream_pid > 0) up_start = sample_process(upstream_pid);
  };
  lo.on_measure_end = [&] {
    if (proxy_pid > 0) proxy_end = sample_process(proxy_pid);
    if (proxy_pid > 0) threads_end = sample_thread_cpu(proxy_pid);
    if (upstream_pid > 0) up_end = sample_process(upstream_pid);
  };
  PassResult p;
  p.load = run_load(lo);
  if (p.load.requests > 0) {
    const auto per_request = [&](const ProcSample& a, const ProcSample& b) {
      return (b.cpu_s - a.cpu_s) * 1e6 / static_cast<double>(p.load.requests);
    };
    if (proxy_pid > 0) p.gateway_cpu_us_per_request = per_request(proxy_start, proxy_end);
    if (upstream_pid > 0) p.upstream_cpu_us_per_request = per_request(up_start, up_end);
    const double requests = static_cast<double>(p.load.requests);
    for (const auto& [group, end_s] : threads_end) {
      const auto start = threads_start.find(group);  // a kind started during the pass counts from 0
      const double spent = end_s - (start == threads_start.end() ? 0.0 : start->second);
      p.cpu_by_thread_us[group] = spent * 1e6 / requests;
    }
  }
  return p;
}

PassResult run_saturation(const ScenarioSettings& s, const Target& t, const std::string& body,
                          pid_t upstream_pid, const std::atomic<bool>* interrupted,
                          const std::string& unique_header) {
  return run_pass(t.port, chat_request(t, body), s.concurrency, s.warmup_s, s.duration_s,
                  s.request_timeout_ms, t.pid, upstream_pid, interrupted, unique_header);
}

OpenLoopResult run_latency(const ScenarioSettings& s, const Target& t, const std::string& body,
                           const std::atomic<bool>* interrupted) {
  OpenLoopOptions o;
  o.port = t.port;
  o.request = chat_request(t, body);
  o.rate = s.rate;
  o.warmup_s = s.latency_warmup_s;
  o.duration_s = s.latency_duration_s;
  o.timeout_ms = s.request_timeout_ms;
  o.interrupted = interrupted;
  return run_open_loop(o);
}

SseScenario run_sse(const ScenarioSettings& s, const Target& t, const std::atomic<bool>* interrupted,
                    StreamApi api) {
  SseScenario out;
  StreamOptions so;
  so.port = t.port;
  if (api == StreamApi::responses) {
    const std::string body =
        nlohmann::json{
            {"model", t.sse_model}, {"stream", true}, {"store", false}, {"input", "Hold this stream open."}}
            .dump();
    so.request = build_request("POST", "/v1/responses", t.bearer, body);
  } else {
    const std::string body =
        nlohmann::json{{"model", t.sse_model},
                       {"stream", true},
                       {"messages", {{{"role", "user"}, {"content", "Hold this stream open."}}}}}
            .dump();
    so.request = chat_request(t, body);
  }
  so.streams = s.sse_streams;
  so.open_rate = s.sse_open_rate;
  so.expected_content = expected_content(s.sse_events);
  // Opening takes N / rate; each stream then lasts (events + 2) intervals.
  so.timeout_s =
      s.sse_streams / std::max(1.0, s.sse_open_rate) + (s.sse_events + 3) * s.sse_interval_ms / 1000.0 + 60;
  so.interrupted = interrupted;
  const ProcSample before = sample_process(t.pid);
  out.rss_before_kib = before.rss_kib;
  so.on_tick = [&](int open_now) {
    const ProcSample p = sample_process(t.pid);
    out.threads_peak = std::max(out.threads_peak, p.threads);
    if (open_now > out.open_at_peak || (open_now == out.open_at_peak && p.rss_kib > out.rss_at_peak_kib)) {
      out.open_at_peak = open_now;
      out.rss_at_peak_kib = p.rss_kib;
    }
  };
  out.result = hold_streams(so);
  out.cpu_s = sample_process(t.pid).cpu_s - before.cpu_s;
  return out;
}

AttackScenario run_attack(const ScenarioSettings& s, const Target& t, const std::string& body,
                          const std::atomic<bool>* interrupted) {
  AttackScenario out;
  out.rss_before_kib = sample_process(t.pid).rss_kib;
  AttackOptions ao;
  ao.port = t.port;
  ao.connections = s.attackers;
  ao.open_rate = s.attack_open_rate;
  Attacker attacker(ao);
  out.open_when_measured = attacker.wait_open(s.attackers / std::max(1.0, s.attack_open_rate) + 10);
  out.rss_peak_kib = sample_process(t.pid).rss_kib;
  OpenLoopOptions o;
  o.port = t.port;
  o.request = chat_request(t, body);
  o.rate = s.attack_rate;
  o.warmup_s = 0;
  o.duration_s = s.attack_duration_s;
  o.timeout_ms = s.attack_timeout_ms;
  o.interrupted = interrupted;
  std::atomic<bool> sampling{true};
  long rss_peak = out.rss_peak_kib;
  std::thread sampler([&] {
    while (sampling.load()) {
      rss_peak = std::max(rss_peak, sample_process(t.pid).rss_kib);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  out.client = run_open_loop(o);
  sampling = false;
  sampler.join();
  out.rss_peak_kib = rss_peak;
  out.attack = attacker.stats();  // before stop(), which closes them all
  attacker.stop();
  return out;
}

}  // namespace bench
