// gateway_bench: starts fake_upstream and modelgw, measures the gateway's
// added latency and throughput on a 1 KiB non-streamed chat request, then
// holds N SSE streams open through it. See README.md.
#include "environment.h"
#include "http_connection.h"
#include "http_wire.h"
#include "load_generator.h"
#include "options.h"
#include "process.h"
#include "report.h"
#include "sse_holder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace {

using namespace bench;

std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int /*sig*/) {
  g_interrupted = true;
}

void progress(const std::string& line) {
  std::cerr << "[bench] " << line << std::endl;
}

std::string seconds(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

// {"model":...,"messages":[{"role":"user","content":"<padding>"}]} of exactly
// `size` bytes (or the smallest possible body when size is below that).
std::string make_body(const std::string& model, std::size_t size) {
  auto render = [&](const std::string& content) {
    return nlohmann::json{{"model", model}, {"messages", {{{"role", "user"}, {"content", content}}}}}.dump();
  };
  const std::size_t base = render("").size();
  static const std::string kWords =
      "The quick brown fox jumps over the lazy dog while the gateway relays it. ";
  std::string content;
  while (base + content.size() < size) content += kWords[content.size() % kWords.size()];
  return render(content);
}

std::string expected_stream_content(int words) {
  std::string s;
  for (int i = 0; i < words; ++i) s += (i ? " tok" : "tok") + std::to_string(i);
  return s;
}

// One closed-loop pass; samples the CPU time of the processes that serve it
// over the measured window.
PassResult run_pass(const Options& o, std::uint16_t port, const std::string& request, int concurrency,
                    double warmup_s, double duration_s, pid_t gateway_pid, pid_t upstream_pid) {
  ProcSample gw_start, gw_end, up_start, up_end;
  LoadOptions lo;
  lo.port = port;
  lo.request = request;
  lo.concurrency = concurrency;
  lo.warmup_s = warmup_s;
  lo.duration_s = duration_s;
  lo.timeout_ms = o.request_timeout_ms;
  lo.interrupted = &g_interrupted;
  lo.on_measure_start = [&] {
    if (gateway_pid > 0) gw_start = sample_process(gateway_pid);
    up_start = sample_process(upstream_pid);
  };
  lo.on_measure_end = [&] {
    if (gateway_pid > 0) gw_end = sample_process(gateway_pid);
    up_end = sample_process(upstream_pid);
  };
  PassResult p;
  p.load = run_load(lo);
  if (p.load.requests > 0) {
    const auto per_request = [&](const ProcSample& a, const ProcSample& b) {
      return (b.cpu_s - a.cpu_s) * 1e6 / static_cast<double>(p.load.requests);
    };
    if (gateway_pid > 0) p.gateway_cpu_us_per_request = per_request(gw_start, gw_end);
    p.upstream_cpu_us_per_request = per_request(up_start, up_end);
  }
  return p;
}

std::string describe(const PassResult& p) {
  const auto& l = p.load;
  return std::to_string(l.requests) + " ok, " + std::to_string(l.errors + l.warmup_errors) + " errors, p50 " +
         std::to_string(l.latency.p50_us) + " us, " + std::to_string(static_cast<long long>(l.rps)) + " rps";
}

LoadComparison compare(const Options& o, const Environment& env, const std::string& body, int concurrency,
                       double warmup_s, double duration_s) {
  LoadComparison c;
  c.concurrency = concurrency;
  const std::string direct = build_request("POST", "/v1/chat/completions", Environment::kUpstreamKey, body);
  const std::string through = build_request("POST", "/v1/chat/completions", env.gateway_key(), body);
  progress("C=" + std::to_string(concurrency) + " direct to fake_upstream (" + seconds(warmup_s) +
           " warm-up + " + seconds(duration_s) + ")");
  c.direct =
      run_pass(o, env.upstream_port(), direct, concurrency, warmup_s, duration_s, -1, env.upstream_pid());
  progress("  " + describe(c.direct));
  if (g_interrupted) return c;
  progress("C=" + std::to_string(concurrency) + " through modelgw");
  c.gateway = run_pass(o, env.gateway_port(), through, concurrency, warmup_s, duration_s, env.gateway_pid(),
                       env.upstream_pid());
  progress("  " + describe(c.gateway));
  return c;
}

// A single request each way, so a broken set-up fails with a clear message
// instead of a table full of errors.
void smoke_test(const Environment& env, const std::string& body) {
  HttpConnection direct(env.upstream_port(), 10000);
  if (int s = direct.exchange(build_request("POST", "/v1/chat/completions", Environment::kUpstreamKey, body));
      s != 200) {
    throw std::runtime_error("fake_upstream answered the benchmark request with HTTP " + std::to_string(s) +
                             ": " + direct.body().substr(0, 300));
  }
  HttpConnection gateway(env.gateway_port(), 10000);
  if (int s = gateway.exchange(build_request("POST", "/v1/chat/completions", env.gateway_key(), body));
      s != 200) {
    throw std::runtime_error("modelgw answered the benchmark request with HTTP " + std::to_string(s) + ": " +
                             gateway.body().substr(0, 300));
  }
}

StreamPhase run_streams(const Options& o, const Environment& env) {
  StreamPhase phase;
  phase.words = o.stream_words;
  // The fake sleeps before every event but the first: the words, the finish
  // chunk, the usage chunk and [DONE], so words + 3 delays make the hold.
  phase.chunk_delay_ms = static_cast<int>(std::lround(o.stream_hold_s * 1000.0 / (o.stream_words + 3)));
  const std::string body =
      nlohmann::json{{"model", Environment::kStreamAlias},
                     {"stream", true},
                     {"messages", {{{"role", "user"}, {"content", "Hold this stream open."}}}}}
          .dump();
  StreamOptions so;
  so.port = env.gateway_port();
  so.request = build_request("POST", "/v1/chat/completions", env.gateway_key(), body);
  so.streams = o.streams;
  so.expected_content = expected_stream_content(o.stream_words);
  so.timeout_s = o.stream_timeout_s;
  so.interrupted = &g_interrupted;
  const pid_t gw = env.gateway_pid();
  const pid_t up = env.upstream_pid();
  so.on_tick = [&] {
    const auto g = sample_process(gw);
    const auto u = sample_process(up);
    phase.gateway_threads_peak = std::max(phase.gateway_threads_peak, g.threads);
    phase.gateway_rss_peak_kib = std::max(phase.gateway_rss_peak_kib, g.rss_kib);
    phase.upstream_threads_peak = std::max(phase.upstream_threads_peak, u.threads);
  };
  progress("opening " + std::to_string(o.streams) + " SSE streams through modelgw (" +
           std::to_string(o.stream_words) + " chunks, " + std::to_string(phase.chunk_delay_ms) +
           " ms apart)");
  const TcpCounters before = read_tcp_counters();
  phase.result = hold_streams(so);
  const TcpCounters after = read_tcp_counters();
  phase.tcp.listen_overflows = after.listen_overflows - before.listen_overflows;
  phase.tcp.listen_drops = after.listen_drops - before.listen_drops;
  phase.tcp.syn_retrans = after.syn_retrans - before.syn_retrans;
  const auto& r = phase.result;
  progress("  " + std::to_string(r.completed) + " completed, " + std::to_string(r.errors) +
           " errors, peak open " + std::to_string(r.peak_open));
  return phase;
}

// The stream model is sized before the environment starts (it is in the config).
std::string stream_model(const Options& o) {
  const long delay = std::lround(o.stream_hold_s * 1000.0 / (o.stream_words + 3));
  return "gpt-4o-mini+chunk_delay_ms=" + std::to_string(delay) + "+words=" + std::to_string(o.stream_words);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  BenchReport report;
  report.options = o;
  report.fd_limit = raise_fd_limit();
  report.cpus = std::thread::hardware_concurrency();
  const std::string body = make_body(Environment::kModelAlias, static_cast<std::size_t>(o.body_bytes));
  report.body_bytes = body.size();
  report.pii_mode = o.pii_mode;

  try {
    EnvironmentOptions eo;
    eo.modelgw_bin = o.modelgw_bin;
    eo.fake_upstream_bin = o.fake_upstream_bin;
    eo.plugin_dir = o.plugin_dir;
    eo.stream_model = stream_model(o);
    eo.max_streams = o.skip_streams ? 0 : o.streams;
    eo.concurrency = o.concurrency;
    eo.keep_temp = o.keep_temp;
    eo.pii_mode = o.pii_mode;
    progress("starting fake_upstream and modelgw");
    Environment env(eo);
    progress("ready: fake_upstream on 127.0.0.1:" + std::to_string(env.upstream_port()) +
             ", modelgw on 127.0.0.1:" + std::to_string(env.gateway_port()) + ", temp dir " + env.temp_dir() +
             (o.keep_temp ? " (kept)" : ""));
    smoke_test(env, body);

    if (!o.skip_load) {
      report.load.push_back(compare(o, env, body, o.concurrency, o.warmup_s, o.duration_s));
      if (!g_interrupted && o.concurrency != 1) {
        report.load.push_back(compare(o, env, body, 1, o.low_warmup_s, o.low_duration_s));
      }
    }
    if (!o.skip_streams && !g_interrupted) report.streams = run_streams(o, env);

    const bool failed = report.total_errors() > 0 || (report.streams && !report.streams_all_completed());
    progress("stopping modelgw and fake_upstream");
    if (failed) {
      std::cerr << "---- last lines of the modelgw log ----\n"
                << env.gateway_log_tail(30) << "---- last lines of the fake_upstream log ----\n"
                << env.upstream_log_tail(10) << "----\n";
    }
    report.shutdown = env.stop();
  } catch (const std::exception& e) {
    report.setup_error = e.what();
    std::cerr << "gateway_bench: " << e.what() << "\n";
  }
  if (g_interrupted)
    report.setup_error += (report.setup_error.empty() ? "" : "; ") + std::string("interrupted");

  print_report(report, std::cout);
  if (o.json_path) {
    try {
      write_json(report, *o.json_path);
      std::cout << "JSON written to " << *o.json_path << "\n";
    } catch (const std::exception& e) {
      std::cerr << "gateway_bench: " << e.what() << "\n";
      return 1;
    }
  }
  return report.exit_code();
}
