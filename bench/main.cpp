// gateway_bench: starts the mock upstream, nginx in front of it and modelgw
// in front of it, and runs each scenario against nginx and modelgw in the same
// run (saturation, latency at a fixed rate, SSE streams, attacker), reporting
// modelgw / nginx ratios; the older phases (direct vs gateway, N streams held
// at once) are still there. See README.md.
#include "comparison_report.h"
#include "environment.h"
#include "front_doors.h"
#include "http_connection.h"
#include "http_wire.h"
#include "load_generator.h"
#include "messages_embeddings.h"
#include "nginx_proxy.h"
#include "options.h"
#include "process.h"
#include "report.h"
#include "report_format.h"
#include "scenarios.h"
#include "sse_holder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

std::string describe(const PassResult& p) {
  const auto& l = p.load;
  return std::to_string(l.requests) + " ok, " + std::to_string(l.errors + l.warmup_errors) + " errors, p50 " +
         std::to_string(l.latency.p50_us) + " us, " + std::to_string(static_cast<long long>(l.rps)) + " rps";
}

// ", proxy CPU 52 us/request (mgw-loop 30.1, mgw-usage 9.8, ...)".
std::string cpu_note(const PassResult& p) {
  std::string note =
      ", proxy CPU " + std::to_string(static_cast<long>(p.gateway_cpu_us_per_request)) + " us/request";
  if (const std::string split = cpu_by_thread_text(p); !split.empty()) note += " (" + split + ")";
  return note;
}

LoadComparison compare(const Options& o, const Environment& env, const std::string& body, int concurrency,
                       double warmup_s, double duration_s) {
  LoadComparison c;
  c.concurrency = concurrency;
  const std::string direct = build_request("POST", "/v1/chat/completions", Environment::kUpstreamKey, body);
  const std::string through = build_request("POST", "/v1/chat/completions", env.gateway_key(), body);
  progress("C=" + std::to_string(concurrency) + " direct to the upstream (" + seconds(warmup_s) +
           " warm-up + " + seconds(duration_s) + ")");
  c.direct = run_pass(env.upstream_port(), direct, concurrency, warmup_s, duration_s, o.request_timeout_ms,
                      -1, env.upstream_pid(), &g_interrupted);
  progress("  " + describe(c.direct));
  if (g_interrupted) return c;
  progress("C=" + std::to_string(concurrency) + " through modelgw");
  c.gateway = run_pass(env.gateway_port(), through, concurrency, warmup_s, duration_s, o.request_timeout_ms,
                       env.gateway_pid(), env.upstream_pid(), &g_interrupted);
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
  so.on_tick = [&](int /*open_now*/) {
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

// The stream models are sized before the environment starts (they are in the config).
std::string stream_model(const Options& o) {
  const long delay = std::lround(o.stream_hold_s * 1000.0 / (o.stream_words + 3));
  return "gpt-4o-mini+chunk_delay_ms=" + std::to_string(delay) + "+words=" + std::to_string(o.stream_words);
}

std::string sse_model(const Options& o) {
  return "gpt-4o-mini+chunk_delay_ms=" + std::to_string(o.sse_interval_ms) +
         "+words=" + std::to_string(o.sse_events);
}

ScenarioSettings scenario_settings(const Options& o) {
  ScenarioSettings s;
  s.rounds = o.rounds;
  s.concurrency = o.concurrency;
  s.warmup_s = o.warmup_s;
  s.duration_s = o.duration_s;
  s.request_timeout_ms = o.request_timeout_ms;
  s.rate = o.rate;
  s.latency_warmup_s = o.latency_warmup_s;
  s.latency_duration_s = o.latency_duration_s;
  s.sse_streams = o.sse_streams;
  s.sse_open_rate = o.sse_open_rate;
  s.sse_interval_ms = o.sse_interval_ms;
  s.sse_events = o.sse_events;
  s.attackers = o.attackers;
  s.attack_open_rate = o.attack_open_rate;
  s.attack_rate = o.attack_rate;
  s.attack_duration_s = o.attack_duration_s;
  s.attack_timeout_ms = o.attack_timeout_ms;
  return s;
}

// Descriptors a process needs besides the held connections: listeners, logs,
// the database, the load workers' connections, an upstream keep-alive pool.
// (nginx at 9,872 streams held 19,753.)
constexpr int kFdReserve = 256;

bool runs_comparison(const Options& o) {
  return o.runs("saturation") || o.runs("latency") || o.runs("sse") || o.runs("attack");
}

// Connections one process may hold at once in the largest scenario chosen:
// a proxy holds two per stream or per attacker (client and upstream side).
std::uint64_t fds_needed(const Options& o) {
  int held = 64;
  if (o.runs("sse")) held = std::max(held, o.sse_streams);
  if (o.runs("attack")) held = std::max(held, o.attackers);
  if (o.runs("hold")) held = std::max(held, o.streams);
  if (o.runs("responses")) held = std::max(held, o.sse_streams);  // its streams, as (c)'s
  held = std::max(held, o.concurrency);
  return 2 * static_cast<std::uint64_t>(held) + kFdReserve;
}

// Lets the sockets of the last scenario close before the next one starts.
void settle() {
  std::this_thread::sleep_for(std::chrono::seconds(1));
}

std::string describe_open_loop(const OpenLoopResult& r) {
  return std::to_string(r.ok) + " ok, " + std::to_string(r.errors) + " errors, " + std::to_string(r.unsent) +
         " unsent, p50 " + std::to_string(r.latency.p50_us) + " us, p99 " + std::to_string(r.latency.p99_us) +
         " us";
}

// Stops the run with the reason when modelgw died during a scenario (the
// results so far are still printed).
void check_gateway_alive(Environment& env, const char* scenario) {
  if (const std::string exit = env.gateway_exit(); !exit.empty()) {
    throw std::runtime_error(std::string("modelgw exited (") + exit + ") during scenario " + scenario +
                             "; its log:\n" + env.gateway_log_tail(15));
  }
}

void run_comparison(const Options& o, Environment& env, const NginxProxy* nginx, const std::string& body,
                    Comparison& c) {
  const auto& s = c.settings;
  const std::string sse_upstream_model = sse_model(o);
  const Target mock{
      "mock", env.upstream_port(), env.upstream_pid(), Environment::kUpstreamKey, sse_upstream_model, ""};
  std::vector<std::pair<Target, TargetRun*>> targets;
  if (nginx != nullptr) {
    targets.push_back(
        {Target{"nginx", nginx->port(), nginx->pid(), Environment::kUpstreamKey, sse_upstream_model, ""},
         &c.nginx});
  }
  const Target gateway{"modelgw",         env.gateway_port(),     env.gateway_pid(),
                       env.gateway_key(), Environment::kSseAlias, ""};
  targets.push_back({gateway, &c.gateway});
  // (a) and (b) also run on the money path: the money tenant's key and a feature.
  auto with_money = targets;
  with_money.push_back({Target{"modelgw (money path)", env.gateway_port(), env.gateway_pid(), env.money_key(),
                               Environment::kSseAlias, Environment::money_headers()},
                        &c.money});

  // (a) and (b), once or in rounds (paired_rounds.h): each round runs every
  // proxy in turn, so the ratios of a round compare passes side by side.
  const auto in_round = [&](Round& r, const TargetRun* run) -> std::optional<PassResult>& {
    return run == &c.nginx ? r.nginx : run == &c.money ? r.money : r.plain;
  };
  const auto latency_in_round = [&](Round& r, const TargetRun* run) -> std::optional<OpenLoopResult>& {
    return run == &c.nginx ? r.nginx_latency : run == &c.money ? r.money_latency : r.plain_latency;
  };
  // No round at all when neither runs (no empty rounds to report).
  const int rounds = o.runs("saturation") || o.runs("latency") ? std::max(1, s.rounds) : 0;
  for (int round = 1; round <= rounds && !g_interrupted; ++round) {
    if (rounds > 1) progress("round " + std::to_string(round) + " of " + std::to_string(rounds));
    Round& r = c.rounds.emplace_back();
    if (o.runs("saturation")) {
      for (auto& [t, run] : with_money) {
        if (g_interrupted) break;
        progress("(a) saturation through " + t.name + ": C=" + std::to_string(s.concurrency) + ", " +
                 seconds(s.warmup_s) + " warm-up + " + seconds(s.duration_s));
        auto& pass = in_round(r, run) = run_saturation(s, t, body, env.upstream_pid(), &g_interrupted);
        check_gateway_alive(env, "saturation");
        progress("  " + describe(*pass) + cpu_note(*pass));
      }
      if (g_interrupted) break;
      // The plain path again, each request with an Idempotency-Key of its own.
      progress("(a) saturation through modelgw, a new Idempotency-Key on every request");
      r.keyed = run_saturation(s, gateway, body, env.upstream_pid(), &g_interrupted, "Idempotency-Key");
      check_gateway_alive(env, "saturation");
      progress("  " + describe(*r.keyed) + cpu_note(*r.keyed));
      settle();
    }
    if (o.runs("latency")) {
      progress("(b) latency at " + std::to_string(static_cast<int>(s.rate)) + " req/s: the mock directly");
      r.direct = run_latency(s, mock, body, &g_interrupted);
      progress("  " + describe_open_loop(*r.direct));
      for (auto& [t, run] : with_money) {
        if (g_interrupted) break;
        progress("(b) latency through " + t.name);
        auto& pass = latency_in_round(r, run) = run_latency(s, t, body, &g_interrupted);
        check_gateway_alive(env, "latency");
        progress("  " + describe_open_loop(*pass));
      }
      settle();
    }
  }
  // The one-run table: each proxy's pass with the median figure of the rounds.
  const auto median_pass = [&](auto pick, auto figure) {
    using Pass = std::remove_cvref_t<decltype(pick(c.rounds.front()))>;
    std::vector<double> figures;
    for (Round& r : c.rounds) figures.push_back(pick(r) ? figure(*pick(r)) : -1.0);
    const int i = median_index(figures);
    return i < 0 ? Pass{} : Pass(pick(c.rounds[static_cast<std::size_t>(i)]));
  };
  const auto cpu = [](const PassResult& p) { return p.gateway_cpu_us_per_request; };
  const auto p50 = [](const OpenLoopResult& l) {
    return l.ok > 0 ? static_cast<double>(l.latency.p50_us) : -1.0;
  };
  for (auto& [t, run] : with_money) {
    const TargetRun* which = run;
    run->saturation = median_pass([&](Round& r) { return in_round(r, which); }, cpu);
    run->latency = median_pass([&](Round& r) { return latency_in_round(r, which); }, p50);
  }
  c.idempotency_key = median_pass([](Round& r) { return r.keyed; }, cpu);
  c.direct_latency = median_pass([](Round& r) { return r.direct; }, p50);
  if (g_interrupted) return;
  if (o.runs("sse")) {
    for (auto& [t, run] : targets) {
      if (g_interrupted) return;
      progress("(c) " + std::to_string(s.sse_streams) + " SSE streams through " + t.name + " at " +
               std::to_string(static_cast<int>(s.sse_open_rate)) + "/s, an event every " +
               std::to_string(s.sse_interval_ms) + " ms");
      run->sse = run_sse(s, t, &g_interrupted);
      check_gateway_alive(env, "sse");
      const auto& r = run->sse->result;
      progress("  " + std::to_string(r.completed) + " completed, " + std::to_string(r.errors) +
               " errors, peak open " + std::to_string(r.peak_open) + ", first event p50 " +
               std::to_string(r.first_event_latency.p50_us) + " us, RSS " +
               std::to_string(run->sse->rss_before_kib) + " -> " + std::to_string(run->sse->rss_at_peak_kib) +
               " KiB at " + std::to_string(run->sse->open_at_peak) + " open");
      settle();
    }
  }
  if (o.runs("attack")) {
    for (auto& [t, run] : targets) {
      if (g_interrupted) return;
      progress("(d) " + std::to_string(s.attackers) + " attacker connections to " + t.name +
               ", a client at " + std::to_string(static_cast<int>(s.attack_rate)) + " req/s for " +
               seconds(s.attack_duration_s));
      run->attack = run_attack(s, t, body, &g_interrupted);
      check_gateway_alive(env, "attack");
      progress("  attackers open " + std::to_string(run->attack->open_when_measured) + ", closed by " +
               t.name + " " + std::to_string(run->attack->attack.closed_by_server) + "; client " +
               describe_open_loop(run->attack->client));
      settle();
    }
  }
}

// One non-streamed POST /v1/responses through `alias`: whether modelgw answered
// with the mock's own response object (its message item "msg_mock"), i.e. sent
// it natively rather than translated to chat. Throws when it is not a 200.
bool answered_natively(const Environment& env, const std::string& alias) {
  HttpConnection conn(env.gateway_port(), 10000);
  const std::string body = nlohmann::json{{"model", alias}, {"input", "Say hello."}, {"store", false}}.dump();
  if (int s = conn.exchange(build_request("POST", "/v1/responses", env.gateway_key(), body)); s != 200) {
    throw std::runtime_error("modelgw answered POST /v1/responses (" + alias + ") with HTTP " +
                             std::to_string(s) + ": " + conn.body().substr(0, 300));
  }
  return conn.body().find("\"msg_mock\"") != std::string::npos;
}

// (e) POST /v1/responses against the equivalent POST /v1/chat/completions
// through modelgw and the same mock upstream, at saturation: the CPU the
// Responses front door adds, translated to chat (both ways) and sent natively
// to a provider that declares it (native_operations: [responses]), each
// without and with keeping the answer (store, a storage write per request).
// Printed as ratios to chat's CPU per request in the same run, and to nginx's
// in (a) when that ran. Then the time to first event of streams, as (c) opens
// them, chat's and the Responses API's (translated and native). Writes its
// summary to `summary`; returns the figures as JSON.
nlohmann::json run_responses(const Options& o, Environment& env, const std::string& chat_body,
                             const Comparison& comparison, std::ostream& summary) {
  const ScenarioSettings s = scenario_settings(o);
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json chat = nlohmann::json::parse(chat_body);
  const std::string content = chat["messages"][0]["content"];
  auto pass = [&](const char* what, const std::string& path, const std::string& body) {
    progress(std::string("(e) ") + what + ": C=" + std::to_string(s.concurrency) + ", " +
             seconds(s.warmup_s) + " warm-up + " + seconds(s.duration_s));
    PassResult r = run_pass(env.gateway_port(), build_request("POST", path, env.gateway_key(), body),
                            s.concurrency, s.warmup_s, s.duration_s, s.request_timeout_ms, env.gateway_pid(),
                            env.upstream_pid(), &g_interrupted);
    check_gateway_alive(env, "responses");
    progress("  " + describe(r) + ", modelgw CPU " +
             std::to_string(static_cast<long>(r.gateway_cpu_us_per_request)) + " us/request");
    settle();
    return r;
  };
  const auto responses_body = [&](const char* alias, bool store) {
    nlohmann::json b = {{"model", alias}, {"input", content}};
    if (!store) b["store"] = false;  // absent: kept, OpenAI's default
    return b.dump();
  };
  const bool native = answered_natively(env, Environment::kNativeAlias);
  const bool translated = !answered_natively(env, Environment::kModelAlias);
  if (!native) {
    progress(std::string("warning: ") + Environment::kNativeAlias +
             " did not answer with the mock's own response object (translated, not native?)");
  }
  if (!translated) {
    progress(std::string("warning: ") + Environment::kModelAlias +
             " answered with the mock's own response object (native, not translated?)");
  }

  struct Row {
    const char* label;
    const char* key;
    PassResult result;
  };
  std::vector<Row> rows;
  rows.push_back({"chat completions", "chat", pass("chat completions", "/v1/chat/completions", chat_body)});
  const std::pair<const char*, std::string> passes[] = {
      {"responses, store false", responses_body(Environment::kModelAlias, false)},
      {"responses, kept", responses_body(Environment::kModelAlias, true)},
      {"responses, native (store false)", responses_body(Environment::kNativeAlias, false)},
      {"responses, native, kept", responses_body(Environment::kNativeAlias, true)},
  };
  const char* keys[] = {"responses_store_false", "responses_kept", "native_store_false", "native_kept"};
  for (std::size_t i = 0; i < std::size(passes); ++i) {
    if (g_interrupted) return out;
    rows.push_back({passes[i].first, keys[i], pass(passes[i].first, "/v1/responses", passes[i].second)});
  }

  const double chat_cpu = rows.front().result.gateway_cpu_us_per_request;
  const double nginx_cpu =
      comparison.nginx.saturation ? comparison.nginx.saturation->gateway_cpu_us_per_request : -1.0;
  const auto over = [](double v, double base) { return base > 0 && v >= 0 ? v / base : -1.0; };
  const auto ratio_text = [](double r) { return r < 0 ? std::string("n/a") : strf("%.2fx", r); };
  summary << "(e) responses: modelgw CPU per request at C=" << s.concurrency << ", over chat's in this run"
          << (nginx_cpu > 0 ? strf(" and over nginx's in (a) (%.1f us)", nginx_cpu)
                            : std::string(" (no nginx figure: run with saturation for one)"))
          << "\n";
  summary << strf("  %-34s %10s %10s %10s %8s\n", "pass", "us/request", "over chat", "over nginx", "errors");
  std::uint64_t errors = 0;
  for (const Row& row : rows) {
    const double cpu = row.result.gateway_cpu_us_per_request;
    const std::uint64_t e = row.result.load.errors + row.result.load.warmup_errors;
    errors += e;
    summary << strf("  %-34s %10.1f %10s %10s %8llu\n", row.label, cpu,
                    ratio_text(over(cpu, chat_cpu)).c_str(), ratio_text(over(cpu, nginx_cpu)).c_str(),
                    static_cast<unsigned long long>(e));
    out[row.key] = {{"requests", row.result.load.requests}, {"errors", e},
                    {"rps", row.result.load.rps},           {"cpu_us_per_request", cpu},
                    {"over_chat", over(cpu, chat_cpu)},     {"over_nginx", over(cpu, nginx_cpu)}};
  }
  summary << "  native alias answered with the mock's own response object: " << (native ? "yes" : "NO")
          << "; translated alias: " << (translated ? "no (translated)" : "YES") << "\n";
  out["nginx_cpu_us_per_request"] = nginx_cpu;
  out["native_verified"] = native && translated;

  // Time to first event of streams, as scenario (c) opens them: chat's, and
  // the Responses API's typed events for the same answer, translated and native.
  auto streams = [&](const char* what, const char* alias, StreamApi api) {
    progress(std::string("(e) ") + std::to_string(s.sse_streams) + " " + what + " streams at " +
             std::to_string(static_cast<int>(s.sse_open_rate)) + "/s, an event every " +
             std::to_string(s.sse_interval_ms) + " ms");
    const Target gateway{"modelgw", env.gateway_port(), env.gateway_pid(), env.gateway_key(), alias, ""};
    SseScenario r = run_sse(s, gateway, &g_interrupted, api);
    check_gateway_alive(env, "responses");
    progress("  " + std::to_string(r.result.completed) + " completed, " + std::to_string(r.result.errors) +
             " errors, first event p50 " + std::to_string(r.result.first_event_latency.p50_us) + " us");
    settle();
    return r;
  };
  const std::tuple<const char*, const char*, const char*, StreamApi> stream_passes[] = {
      {"chat completions", "chat", Environment::kSseAlias, StreamApi::chat},
      {"responses", "responses", Environment::kSseAlias, StreamApi::responses},
      {"responses, native", "native", Environment::kNativeSseAlias, StreamApi::responses},
  };
  summary << "(e) responses: streamed (store false), time to first event\n";
  summary << strf("  %-34s %10s %10s %12s\n", "pass", "p50 us", "p99 us", "completed");
  nlohmann::json streamed = nlohmann::json::object();
  for (const auto& [what, key, alias, api] : stream_passes) {
    if (g_interrupted) break;
    const StreamResult r = streams(what, alias, api).result;
    summary << strf("  %-34s %10lld %10lld %12s\n", what,
                    static_cast<long long>(r.first_event_latency.p50_us),
                    static_cast<long long>(r.first_event_latency.p99_us),
                    (std::to_string(r.completed) + "/" + std::to_string(r.requested)).c_str());
    streamed[key] = {{"requested", r.requested},
                     {"completed", r.completed},
                     {"first_event_latency", latency_json(r.first_event_latency)}};
  }
  out["streamed"] = streamed;
  summary << "(e) responses: errors " << errors << "\n";
  return out;
}

// One request through nginx, so a broken baseline fails with a clear message.
void smoke_test_nginx(const NginxProxy& nginx, const std::string& body) {
  HttpConnection conn(nginx.port(), 10000);
  if (int s = conn.exchange(build_request("POST", "/v1/chat/completions", Environment::kUpstreamKey, body));
      s != 200) {
    throw std::runtime_error("nginx answered the benchmark request with HTTP " + std::to_string(s) + ": " +
                             conn.body().substr(0, 300));
  }
}

}  // namespace

// Sizes the scenarios to the open-files limit this process (and so every
// child) got: a proxy holds two descriptors per stream (client and upstream
// side) plus a few of its own, so with the limit L at most (L - reserve) / 2
// streams can be open through it. Returns a note for each cut.
std::vector<std::string> fit_to_fd_limit(Options& o, std::uint64_t limit) {
  std::vector<std::string> notes;
  const int per_proxy =
      std::max(1, (static_cast<int>(std::min<std::uint64_t>(limit, 1 << 30)) - kFdReserve) / 2);
  const auto cut = [&](int& value, int max, const char* what) {
    if (value <= max) return;
    notes.push_back(std::string(what) + " cut from " + std::to_string(value) + " to " + std::to_string(max) +
                    ": RLIMIT_NOFILE is " + std::to_string(limit));
    value = max;
  };
  if (o.runs("sse") || o.runs("responses")) cut(o.sse_streams, per_proxy, "--sse-streams");
  if (o.runs("hold")) cut(o.streams, per_proxy, "--streams");
  if (o.runs("attack")) cut(o.attackers, static_cast<int>(limit) - kFdReserve, "--attackers");
  return notes;
}

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  BenchReport report;
  report.options = o;
  report.fd_needed = fds_needed(o);
  report.fd_limit = raise_fd_limit(report.fd_needed);
  if (report.fd_limit < report.fd_needed) {
    progress("warning: RLIMIT_NOFILE is " + std::to_string(report.fd_limit) +
             " (hard limit; it cannot be raised "
             "here), the scenarios need about " +
             std::to_string(report.fd_needed) +
             " per process: raise it with ulimit -Hn (root, CAP_SYS_RESOURCE) before running");
    report.notes = fit_to_fd_limit(o, report.fd_limit);
    for (const auto& n : report.notes) progress("  " + n);
    report.options = o;
  }
  report.cpus = std::thread::hardware_concurrency();
  const std::string body = make_body(Environment::kModelAlias, static_cast<std::size_t>(o.body_bytes));
  report.body_bytes = body.size();
  report.pii_mode = o.pii_mode;
  Comparison comparison;
  comparison.settings = scenario_settings(o);
  comparison.body_bytes = body.size();
  comparison.pii_mode = o.pii_mode;
  comparison.access_log = o.access_log;

  bool gateway_crashed = false;
  nlohmann::json responses;              // (e)'s figures, when it ran
  std::ostringstream responses_summary;  // printed after the comparison
  nlohmann::json messages_embeddings;    // (f)'s, likewise
  std::ostringstream messages_embeddings_summary;
  nlohmann::json front_doors;  // (g)'s, likewise
  std::ostringstream front_doors_summary;
  try {
    EnvironmentOptions eo;
    eo.modelgw_bin = o.modelgw_bin;
    eo.mock_upstream_bin = o.mock_upstream_bin;
    eo.mock_threads = o.mock_threads;
    eo.fake_upstream_bin = o.fake_upstream_bin;
    eo.plugin_dir = o.plugin_dir;
    eo.stream_model = stream_model(o);
    eo.sse_stream_model = sse_model(o);
    eo.max_streams = static_cast<int>((report.fd_needed - kFdReserve) / 2);
    eo.concurrency = o.concurrency;
    eo.keep_temp = o.keep_temp;
    eo.pii_mode = o.pii_mode;
    eo.default_caps = o.gateway_defaults;
    eo.access_log = o.access_log;
    progress("starting the upstream and modelgw");
    Environment env(eo);
    progress("ready: " + env.upstream_name() + " on 127.0.0.1:" + std::to_string(env.upstream_port()) +
             ", modelgw on 127.0.0.1:" + std::to_string(env.gateway_port()) + ", temp dir " + env.temp_dir() +
             (o.keep_temp ? " (kept)" : ""));
    smoke_test(env, body);

    std::unique_ptr<NginxProxy> nginx;
    // (f) relays embeddings through nginx too, (g) the other front doors.
    if ((runs_comparison(o) || o.runs("messages_embeddings") || o.runs("front_doors")) && !o.skip_nginx) {
      try {
        NginxOptions no;
        no.nginx_bin = o.nginx_bin;
        no.dir = std::filesystem::path(env.temp_dir()) / "nginx";
        no.upstream_port = env.upstream_port();
        // More slots than descriptors: at worker_connections == RLIMIT_NOFILE (20,000)
        // nginx stopped at 9,375 streams (18,759 fds) with "worker_connections are not
        // enough" and reset the next ones; with headroom it runs until the fd limit.
        no.worker_connections = static_cast<int>(report.fd_needed) + 8192;
        nginx = std::make_unique<NginxProxy>(no);
        comparison.nginx_version = nginx->version();
        progress("nginx (" + nginx->version() + ") on 127.0.0.1:" + std::to_string(nginx->port()));
        smoke_test_nginx(*nginx, body);
      } catch (const std::exception& e) {
        comparison.nginx_error = e.what();
        nginx.reset();
        progress("nginx baseline not available, modelgw alone: " + comparison.nginx_error);
      }
    } else if (o.skip_nginx) {
      comparison.nginx_error = "--no-nginx";
    }
    if (runs_comparison(o)) run_comparison(o, env, nginx.get(), body, comparison);

    if (o.runs("direct") && !g_interrupted) {
      report.load.push_back(compare(o, env, body, o.concurrency, o.warmup_s, o.duration_s));
      if (!g_interrupted && o.concurrency != 1) {
        report.load.push_back(compare(o, env, body, 1, o.low_warmup_s, o.low_duration_s));
      }
    }
    if (o.runs("hold") && !g_interrupted) report.streams = run_streams(o, env);
    if (o.runs("responses") && !g_interrupted)
      responses = run_responses(o, env, body, comparison, responses_summary);
    if (o.runs("messages_embeddings") && !g_interrupted) {
      ScenarioHooks hooks;
      hooks.interrupted = &g_interrupted;
      hooks.progress = progress;
      hooks.after_pass = [&env] {
        check_gateway_alive(env, "messages_embeddings");
        settle();
      };
      messages_embeddings = run_messages_embeddings(scenario_settings(o), env, nginx.get(), body, hooks,
                                                    messages_embeddings_summary);
    }
    if (o.runs("front_doors") && !g_interrupted) {
      ScenarioHooks hooks;
      hooks.interrupted = &g_interrupted;
      hooks.progress = progress;
      hooks.after_pass = [&env] {
        check_gateway_alive(env, "front_doors");
        settle();
      };
      front_doors = run_front_doors(scenario_settings(o), env, nginx.get(), body, hooks, front_doors_summary);
    }

    const bool failed = report.total_errors() > 0 || (report.streams && !report.streams_all_completed()) ||
                        comparison.failures() > 0;
    progress("stopping the processes");
    if (failed) {
      std::cerr << "---- last lines of the modelgw log ----\n"
                << env.gateway_log_tail(30) << "---- last lines of the upstream log ----\n"
                << env.upstream_log_tail(10) << "----\n";
      if (nginx) std::cerr << "---- last lines of the nginx error log ----\n" << nginx->error_log_tail(10);
    }
    if (nginx) report.shutdown = "nginx: " + nginx->stop() + ", ";
    report.shutdown += env.stop();
    // SIGTERM asks for a clean exit; a signal as the end is a crash at shutdown.
    if (report.shutdown.find("modelgw: signal") != std::string::npos) {
      gateway_crashed = true;
      report.notes.push_back("modelgw crashed at shutdown (" + report.shutdown + "); its log:\n" +
                             env.gateway_log_tail(5));
    }
  } catch (const std::exception& e) {
    report.setup_error = e.what();
    std::cerr << "gateway_bench: " << e.what() << "\n";
  }
  if (g_interrupted)
    report.setup_error += (report.setup_error.empty() ? "" : "; ") + std::string("interrupted");

  print_report(report, std::cout);
  if (runs_comparison(o)) print_comparison(comparison, std::cout);
  if (!responses_summary.str().empty()) std::cout << "\n" << responses_summary.str();
  if (!messages_embeddings_summary.str().empty()) std::cout << "\n" << messages_embeddings_summary.str();
  if (!front_doors_summary.str().empty()) std::cout << "\n" << front_doors_summary.str();
  const int exit_code = report.exit_code() != 0 || comparison.failures() > 0 || gateway_crashed ? 1 : 0;
  std::cout << "\nexit code " << exit_code << "\n";
  if (o.json_path) {
    try {
      nlohmann::json extra = nlohmann::json::object();
      if (runs_comparison(o)) extra["comparison"] = comparison_json(comparison);
      if (!responses.is_null()) extra["responses"] = responses;
      if (!messages_embeddings.is_null()) extra["messages_embeddings"] = messages_embeddings;
      if (!front_doors.is_null()) extra["front_doors"] = front_doors;
      extra["exit_code"] = exit_code;
      write_json(report, *o.json_path, extra);
      std::cout << "JSON written to " << *o.json_path << "\n";
    } catch (const std::exception& e) {
      std::cerr << "gateway_bench: " << e.what() << "\n";
      return 1;
    }
  }
  return exit_code;
}
