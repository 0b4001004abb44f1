#include "report.h"
#include "report_format.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace bench {
namespace {

constexpr std::int64_t kAddedLatencyTargetUs = 200;

std::string cpu_text(double us) {
  return us < 0 ? std::string("-") : strf("%.0f", us);
}

const LoadComparison* low_pass(const BenchReport& r) {
  for (const auto& c : r.load) {
    if (c.concurrency == 1 && c.complete()) return &c;
  }
  return nullptr;
}

void print_pass(std::ostream& out, const char* label, const PassResult& p) {
  const auto& l = p.load;
  out << strf("  %-8s %4d %9llu %7llu %9.0f %8lld %8lld %8lld %9lld %8s %8s\n", label, l.concurrency,
              static_cast<unsigned long long>(l.requests),
              static_cast<unsigned long long>(l.errors + l.warmup_errors), l.rps,
              static_cast<long long>(l.latency.p50_us), static_cast<long long>(l.latency.p90_us),
              static_cast<long long>(l.latency.p99_us), static_cast<long long>(l.latency.max_us),
              cpu_text(p.gateway_cpu_us_per_request).c_str(),
              cpu_text(p.upstream_cpu_us_per_request).c_str());
  for (const auto& [reason, count] : l.error_reasons) {
    out << "           error x" << count << ": " << reason << "\n";
  }
}

nlohmann::json pass_json(const PassResult& p) {
  const auto& l = p.load;
  nlohmann::json j = {{"concurrency", l.concurrency},
                      {"window_s", l.window_s},
                      {"requests", l.requests},
                      {"errors", l.errors},
                      {"warmup_requests", l.warmup_requests},
                      {"warmup_errors", l.warmup_errors},
                      {"rps", l.rps},
                      {"latency", latency_json(l.latency)},
                      {"error_reasons", l.error_reasons}};
  if (p.gateway_cpu_us_per_request >= 0) j["gateway_cpu_us_per_request"] = p.gateway_cpu_us_per_request;
  if (p.upstream_cpu_us_per_request >= 0) j["upstream_cpu_us_per_request"] = p.upstream_cpu_us_per_request;
  if (!p.cpu_by_thread_us.empty()) j["gateway_cpu_by_thread_us_per_request"] = p.cpu_by_thread_us;
  return j;
}

}  // namespace

std::uint64_t BenchReport::total_errors() const {
  std::uint64_t n = 0;
  for (const auto& c : load) {
    n += c.direct.load.errors + c.direct.load.warmup_errors + c.gateway.load.errors +
         c.gateway.load.warmup_errors;
  }
  if (streams) n += static_cast<std::uint64_t>(streams->result.errors);
  return n;
}

bool BenchReport::latency_target_met() const {
  const auto* low = low_pass(*this);
  return low != nullptr && low->gateway.load.requests > 0 && low->direct.load.requests > 0 &&
         low->added_p50_us() < kAddedLatencyTargetUs;
}

bool BenchReport::streams_all_completed() const {
  return streams && streams->result.errors == 0 && streams->result.completed == streams->result.requested;
}

bool BenchReport::streams_target_met() const {
  return streams_all_completed() && streams->result.peak_open == streams->result.requested;
}

int BenchReport::exit_code() const {
  if (!setup_error.empty()) return 1;
  if (streams && !streams_all_completed()) return 1;
  return total_errors() == 0 ? 0 : 1;
}

void print_report(const BenchReport& r, std::ostream& out) {
  out << "\n=== modelgw gateway benchmark ===\n";
  out << strf("machine: %u CPUs, RLIMIT_NOFILE %llu (the largest scenario needs about %llu per process)\n",
              r.cpus, static_cast<unsigned long long>(r.fd_limit),
              static_cast<unsigned long long>(r.fd_needed));
  for (const auto& n : r.notes) out << "note: " << n << "\n";
  if (!r.setup_error.empty()) out << "ABORTED: " << r.setup_error << "\n";

  if (!r.load.empty()) {
    out << "\nNon-streamed chat completion, " << r.body_bytes
        << "-byte JSON body; closed loop, one keep-alive connection per worker; gateway PII mode "
        << r.pii_mode << ".\n"
        << "direct = the upstream alone; gateway = client -> modelgw -> upstream. Latencies in us.\n\n";
    out << strf("  %-8s %4s %9s %7s %9s %8s %8s %8s %9s %8s %8s\n", "target", "C", "requests", "errors",
                "RPS", "p50", "p90", "p99", "max", "gwCPU/rq", "upCPU/rq");
    for (const auto& c : r.load) {
      const double window = c.direct.load.window_s;
      out << strf("  -- C=%d (%.1f s measured after warm-up) --\n", c.concurrency, window);
      print_pass(out, "direct", c.direct);
      if (c.complete()) print_pass(out, "gateway", c.gateway);
    }
    if (std::any_of(r.load.begin(), r.load.end(), [](const LoadComparison& c) { return c.complete(); })) {
      out << "\n  added latency (gateway - direct):\n";
    }
    for (const auto& c : r.load) {
      if (!c.complete()) continue;
      out << strf("    C=%-4d  p50 %+7lld us   p99 %+7lld us   throughput %5.1f%% of direct\n", c.concurrency,
                  static_cast<long long>(c.added_p50_us()), static_cast<long long>(c.added_p99_us()),
                  c.direct.load.rps > 0 ? 100.0 * c.gateway.load.rps / c.direct.load.rps : 0.0);
    }
  }

  if (r.streams) {
    const auto& s = r.streams->result;
    out << strf("\nOpen SSE streams through the gateway (alias slowstream: %d chunks, %d ms apart)\n",
                r.streams->words, r.streams->chunk_delay_ms);
    out << strf("  requested                    %6d\n", s.requested);
    out << strf("  connected (TCP)              %6d\n", s.connected);
    out << strf("  opened (HTTP 200)            %6d\n", s.opened);
    out << strf("  completed with [DONE]        %6d\n", s.completed);
    out << strf("  errors                       %6d\n", s.errors);
    out << strf("  peak concurrently open       %6d\n", s.peak_open);
    if (s.time_to_open_all_s >= 0) {
      out << strf("  time to open all             %9.3f s\n", s.time_to_open_all_s);
    } else {
      out << strf("  time to open all                  n/a (only %d got a first event)\n", s.first_event);
    }
    out << strf("  first event p50/p99/max      %lld / %lld / %lld us\n",
                static_cast<long long>(s.first_event_latency.p50_us),
                static_cast<long long>(s.first_event_latency.p99_us),
                static_cast<long long>(s.first_event_latency.max_us));
    if (s.duration.count > 0) {
      out << strf("  stream duration p50/max      %.2f / %.2f s\n",
                  static_cast<double>(s.duration.p50_us) / 1e6, static_cast<double>(s.duration.max_us) / 1e6);
    } else {
      out << "  stream duration p50/max      n/a (none completed)\n";
    }
    out << strf("  phase total                  %9.3f s\n", s.total_s);
    out << strf("  modelgw peak threads / RSS   %ld / %.1f MiB\n", r.streams->gateway_threads_peak,
                static_cast<double>(r.streams->gateway_rss_peak_kib) / 1024.0);
    out << strf("  upstream peak threads        %ld\n", r.streams->upstream_threads_peak);
    out << strf("  TCP listen overflows / SYN retransmits during the phase: %ld / %ld\n",
                r.streams->tcp.listen_overflows, r.streams->tcp.syn_retrans);
    for (const auto& [kind, count] : s.error_kinds) out << "  error x" << count << ": " << kind << "\n";
    for (const auto& sample : s.error_samples) out << "    e.g. " << sample << "\n";
  }

  if (r.load.empty() && !r.streams) {
    if (!r.shutdown.empty()) out << "\nshutdown: " << r.shutdown << "\n";
    return;
  }
  out << "\nTargets\n";
  if (const auto* low = low_pass(r)) {
    out << strf("  added median latency < %lld us (C=1, non-streamed): %s (%+lld us)\n",
                static_cast<long long>(kAddedLatencyTargetUs), r.latency_target_met() ? "MET" : "NOT MET",
                static_cast<long long>(low->added_p50_us()));
  } else {
    out << "  added median latency: not measured\n";
  }
  if (r.streams) {
    out << strf("  %d concurrent SSE streams without an error:     %s (%d completed, peak %d open)\n",
                r.streams->result.requested, r.streams_target_met() ? "MET" : "NOT MET",
                r.streams->result.completed, r.streams->result.peak_open);
  } else {
    out << "  concurrent SSE streams: not measured\n";
  }
  if (!r.shutdown.empty()) out << "\nshutdown: " << r.shutdown << "\n";
  out << "errors in total: " << r.total_errors() << "; exit code " << r.exit_code() << "\n";
}

void write_json(const BenchReport& r, const std::string& path, const nlohmann::json& extra) {
  const auto& o = r.options;
  nlohmann::json j;
  j["settings"] = {{"concurrency", o.concurrency},
                   {"warmup_s", o.warmup_s},
                   {"duration_s", o.duration_s},
                   {"low_warmup_s", o.low_warmup_s},
                   {"low_duration_s", o.low_duration_s},
                   {"body_bytes", r.body_bytes},
                   {"pii_mode", r.pii_mode},
                   {"streams", o.streams},
                   {"stream_hold_s", o.stream_hold_s},
                   {"stream_words", o.stream_words},
                   {"cpus", r.cpus},
                   {"fd_limit", r.fd_limit}};
  j["load"] = nlohmann::json::array();
  for (const auto& c : r.load) {
    if (!c.complete()) continue;
    j["load"].push_back({{"concurrency", c.concurrency},
                         {"direct", pass_json(c.direct)},
                         {"gateway", pass_json(c.gateway)},
                         {"added_p50_us", c.added_p50_us()},
                         {"added_p99_us", c.added_p99_us()}});
  }
  if (r.streams) {
    const auto& s = r.streams->result;
    j["streams"] = {{"requested", s.requested},
                    {"connected", s.connected},
                    {"opened", s.opened},
                    {"first_event", s.first_event},
                    {"completed", s.completed},
                    {"errors", s.errors},
                    {"error_kinds", s.error_kinds},
                    {"error_samples", s.error_samples},
                    {"peak_open", s.peak_open},
                    {"time_to_open_all_s", s.time_to_open_all_s >= 0 ? nlohmann::json(s.time_to_open_all_s)
                                                                     : nlohmann::json(nullptr)},
                    {"total_s", s.total_s},
                    {"first_event_latency", latency_json(s.first_event_latency)},
                    {"stream_duration", latency_json(s.duration)},
                    {"words", r.streams->words},
                    {"chunk_delay_ms", r.streams->chunk_delay_ms},
                    {"gateway_threads_peak", r.streams->gateway_threads_peak},
                    {"gateway_rss_peak_kib", r.streams->gateway_rss_peak_kib},
                    {"upstream_threads_peak", r.streams->upstream_threads_peak},
                    {"tcp_listen_overflows", r.streams->tcp.listen_overflows},
                    {"tcp_listen_drops", r.streams->tcp.listen_drops},
                    {"tcp_syn_retransmits", r.streams->tcp.syn_retrans}};
  }
  j["fd_needed"] = r.fd_needed;
  j["notes"] = r.notes;
  j["targets"] = {{"added_p50_under_200us", r.latency_target_met()},
                  {"streams_all_completed", r.streams_all_completed()},
                  {"streams_held_concurrently_without_error", r.streams_target_met()}};
  if (!r.setup_error.empty()) j["setup_error"] = r.setup_error;
  j["shutdown"] = r.shutdown;
  j["total_errors"] = r.total_errors();
  j["exit_code"] = r.exit_code();
  for (const auto& [key, value] : extra.items()) j[key] = value;
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error("cannot write " + path);
}

double cpu_of(const std::optional<PassResult>& p) {
  return p ? p->gateway_cpu_us_per_request : -1;
}

double rps_of(const std::optional<PassResult>& p) {
  return p ? p->load.rps : -1;
}

double p99_of(const std::optional<PassResult>& p) {
  return p && p->load.requests > 0 ? static_cast<double>(p->load.latency.p99_us) : -1;
}

std::string cpu_by_thread_text(const PassResult& p) {
  if (p.cpu_by_thread_us.size() < 2) return {};
  std::vector<std::pair<std::string, double>> kinds(p.cpu_by_thread_us.begin(), p.cpu_by_thread_us.end());
  std::sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [kind, us] : kinds) {
    if (us < 0.05) continue;
    if (!out.empty()) out += ", ";
    out += strf("%s %.1f", kind.c_str(), us);
  }
  return out;
}

}  // namespace bench
