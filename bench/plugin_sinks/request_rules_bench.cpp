// What checking a plugin's upstream request costs per request; see README.md.
#include "chat/plugin_sinks.h"
#include "http/field_rules.h"

#include <modelgw/sdk.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Request {
  std::string method = "POST";
  std::string path = "/v1beta/models/gemini-2.5-flash:generateContent";
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Authorization", "Bearer sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH"},
      {"Content-Type", "application/json"},
      {"Accept", "text/event-stream"},
      {"anthropic-version", "2023-06-01"},
      {"User-Agent", "modelgw/1.0"}};
  std::string body = std::string(2048, 'x');
};

volatile std::size_t sink_bytes = 0;  // keeps the work observable

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename F>
double ns_per_op(long iterations, F&& f) {
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = Clock::now();
    for (long i = 0; i < iterations; ++i) f();
    const auto dt = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    runs.push_back(dt / static_cast<double>(iterations));
  }
  return median(std::move(runs));
}

}  // namespace

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 200000;
  const Request req;
  using namespace modelgw;

  const double checks = ns_per_op(iterations, [&] {
    bool ok = http::is_token(req.method) && http::is_request_target_text(req.path);
    for (const auto& [n, v] : req.headers) {
      ok = ok && http::is_token(n) && http::is_field_value(v) && !chat::is_host_owned_header(n);
    }
    sink_bytes = sink_bytes + (ok ? 1 : 0);
  });
  const double collect = ns_per_op(iterations, [&] {
    chat::RequestCollector c;
    const auto& s = c.sink;
    s.callback_method(s.host_data, mgw::str(req.method));
    s.callback_path(s.host_data, mgw::str(req.path));
    for (const auto& [n, v] : req.headers) s.callback_header(s.host_data, mgw::str(n), mgw::str(v));
    s.callback_body(s.host_data, mgw::str(req.body));
    sink_bytes = sink_bytes + c.request.body.size();
  });
  const double copy = ns_per_op(iterations, [&] {
    upstream::OutgoingRequest out;
    out.method.assign(req.method);
    out.path.assign(req.path);
    for (const auto& [n, v] : req.headers) out.headers.emplace_back(n, v);
    out.body.assign(req.body);
    sink_bytes = sink_bytes + out.body.size();
  });
  std::printf("request_rules_bench: %ld iterations x 7 runs, median ns per request\n", iterations);
  std::printf("  checks only  %8.1f ns\n", checks);
  std::printf("  collect      %8.1f ns\n", collect);
  std::printf("  copy only    %8.1f ns\n", copy);
  std::printf("  collect - copy %6.1f ns\n", collect - copy);
  return 0;
}
