// idempotency_bench: what the idempotency step costs a request, measured
// through the real binary in one run (README.md):
//   1. 64 connections, keep-alive, non-streamed chat: no key (the baseline),
//      a new key per request (claim + keep the answer: two store writes), a
//      replayed key (one store read, no upstream); p50/p99 of each.
//   2. A 50-chunk stream: the first request (through the upstream) and its
//      replays, time to the last event, p50/p99.
#include "harness/checks.h"
#include "harness/stack.h"
#include "nginx_proxy.h"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;
using it::Headers;
using it::json;

struct Figures {
  double p50_us = 0;
  double p99_us = 0;
  int errors = 0;
  double per_second = 0;  // requests answered per second of the run
};

Figures figures(std::vector<double> us, int errors) {
  Figures f;
  f.errors = errors;
  if (us.empty()) return f;
  std::sort(us.begin(), us.end());
  f.p50_us = us[us.size() / 2];
  f.p99_us = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  return f;
}

// `per_thread` requests on each of `threads` keep-alive connections; key_of
// gives the Idempotency-Key of request i of thread t ("" for none).
template <typename KeyOf>
Figures run(int port, const std::string& api_key, const std::string& body, int threads, int per_thread,
            KeyOf key_of) {
  std::vector<std::vector<double>> samples(static_cast<std::size_t>(threads));
  std::atomic<int> errors{0};
  const auto began = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
      session.setKeepAlive(true);
      session.setTimeout(Poco::Timespan(30, 0));
      for (int i = 0; i < per_thread; ++i) {
        Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_POST, "/v1/chat/completions",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
        req.setKeepAlive(true);
        req.set("Authorization", "Bearer " + api_key);
        req.setContentType("application/json");
        req.setContentLength(static_cast<std::streamsize>(body.size()));
        const std::string key = key_of(t, i);
        if (!key.empty()) req.set("Idempotency-Key", key);
        const auto start = Clock::now();
        try {
          session.sendRequest(req) << body;
          Poco::Net::HTTPResponse resp;
          std::istream& in = session.receiveResponse(resp);
          std::ostringstream sink;
          Poco::StreamCopier::copyStream(in, sink);
          if (resp.getStatus() != 200) ++errors;
        } catch (const std::exception&) {
          ++errors;
          session.reset();
          continue;
        }
        samples[static_cast<std::size_t>(t)].push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - start).count());
      }
    });
  }
  for (auto& p : pool) p.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  std::vector<double> all;
  for (auto& s : samples) all.insert(all.end(), s.begin(), s.end());
  Figures f = figures(std::move(all), errors);
  f.per_second = static_cast<double>(threads) * per_thread / seconds;
  return f;
}

// `n` streamed requests one after another with `key`: time to the last event.
Figures streams(int port, const std::string& api_key, const std::string& body, const std::string& key, int n,
                std::size_t* events) {
  std::vector<double> us;
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    const auto start = Clock::now();
    const auto r = it::stream_chat(port, api_key, body, 10000, {{"Idempotency-Key", key}});
    if (r.status != 200 || r.events.empty()) ++errors;
    *events = r.events.size();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return figures(std::move(us), errors);
}

void print(const char* name, const Figures& f, const Figures& base) {
  std::printf("  %-28s p50 %8.0f us  p99 %8.0f us   (x%.2f / x%.2f of nginx)  %6.0f/s  errors %d\n", name,
              f.p50_us, f.p99_us, f.p50_us / base.p50_us, f.p99_us / base.p99_us, f.per_second, f.errors);
}

}  // namespace

int run_bench(int argc, char** argv) {
  int threads = 64;
  int per_thread = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--threads") threads = std::atoi(argv[i + 1]);
    if (a == "--requests") per_thread = std::atoi(argv[i + 1]);
  }
  it::GatewayOptions o;
  o.extra_catalog_yaml =
      "  bench-stream: { provider: openai, model: \"gpt-4o-mini+words=46\", context_window: 128000, "
      "max_output_tokens: 1000, prices: { input: 1, output: 1 } }\n";
  o.key_cache_ttl_ms = 60000;
  auto stack = it::start_stack(o);
  const int port = stack->port();
  const std::string key = stack->key.key;
  const std::string body = it::chat_body("gpt-4o-mini", "how much does a key cost");
  // The baseline: nginx as a plain reverse proxy in front of the same fake
  // upstream program, measured in the same run (an nginx hop is what a
  // gateway costs at the least). Its own instance: the fake serves one
  // connection per thread, and nginx's idle keep-alive connections would
  // hold threads the gateway's calls need.
  it::FakeUpstream nginx_upstream(it::kProviderKey);
  const auto nginx_dir = std::filesystem::path(stack->gateway->dir()) / "nginx";
  bench::NginxProxy nginx(bench::NginxOptions{"/usr/sbin/nginx", nginx_dir,
                                              static_cast<std::uint16_t>(nginx_upstream.port()), 65536, 32,
                                              "/_fake/health"});
  const int nginx_port = nginx.port();
  const std::string vendor_key = it::kProviderKey;  // nginx passes the request on as it is
  const auto no_key = [](int, int) { return std::string(); };
  // Warm up: connections, caches.
  (void)run(nginx_port, vendor_key, body, threads, 10, no_key);
  (void)run(port, key, body, threads, 10, no_key);

  std::printf("idempotency step, %d connections x %d requests (non-streamed chat), %s:\n", threads,
              per_thread, nginx.version().c_str());
  // Two rounds, interleaved, so a noisy moment of the machine shows as a
  // difference between rounds rather than between modes.
  Figures base, none, fresh, replay;
  for (int round = 0; round < 2; ++round) {
    const std::string tag = "r" + std::to_string(round) + "-";
    const auto new_key = [&](int t, int i) { return tag + std::to_string(t) + "-" + std::to_string(i); };
    base = run(nginx_port, vendor_key, body, threads, per_thread, no_key);
    none = run(port, key, body, threads, per_thread, no_key);
    fresh = run(port, key, body, threads, per_thread, new_key);
    replay = run(port, key, body, threads, per_thread, new_key);
    std::printf(" round %d:\n", round + 1);
    print("nginx hop", base, base);
    print("modelgw, no key", none, base);
    print("modelgw, a new key", fresh, base);
    print("modelgw, a replayed key", replay, base);
  }

  std::size_t events = 0;
  const std::string sbody = it::chat_body("gpt-4o-mini+words=46", "stream me fifty chunks", true);
  const std::string gbody = it::chat_body("bench-stream", "stream me fifty chunks", true);
  auto time_streams = [&](int at, const std::string& bearer, const std::string& b,
                          const std::string& prefix) {
    std::vector<double> us;
    for (int i = 0; i < 30; ++i) {
      const auto start = Clock::now();
      const Headers idem = {{"Idempotency-Key", prefix + std::to_string(i)}};
      const auto r = it::stream_chat(at, bearer, b, 10000, prefix.empty() ? Headers{} : idem);
      events = r.events.size();
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    return figures(us, 0);
  };
  const Figures via_nginx = time_streams(nginx_port, vendor_key, sbody, "");
  const Figures orig = time_streams(port, key, gbody, "stream-orig-");
  const Figures rep = streams(port, key, gbody, "stream-orig-0", 30, &events);
  std::printf("stream of %zu events, time to its last event:\n", events);
  print("nginx hop", via_nginx, via_nginx);
  print("modelgw, first (upstream)", orig, via_nginx);
  print("modelgw, replay", rep, via_nginx);
  return none.errors + fresh.errors + replay.errors + rep.errors == 0 ? 0 : 1;
}

// An exception must unwind: the stack's destructors stop the gateway and the
// fake upstream it started.
int main(int argc, char** argv) {
  try {
    return run_bench(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "idempotency_bench: %s\n", e.what());
    return 1;
  }
}
