// One provider serving many threads at once, as the gateway's event loops
// call it: every thread must get exactly the answers one thread gets.
#include "checks.h"
#include "expectations.h"
#include "findings.h"

#include <atomic>
#include <thread>

namespace mgw::testkit {
namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 25;

// What one round produces, comparable across threads.
struct Answers {
  std::optional<std::string> request_body;
  std::vector<Json> response;
  std::vector<Json> stream;
};

bool operator==(const Answers& a, const Answers& b) {
  return a.request_body == b.request_body && a.response == b.response && a.stream == b.stream;
}

void concurrency(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return;
  Session& s = *ready->session;
  const std::string request = base_request(ctx);
  std::optional<ResponseCase> response;
  for (const auto* sub : {"responses", "errors"}) {
    const auto files = fixture_files(ctx.fixtures, sub, ".json");
    if (!response && !files.empty()) response = load_response_case(files.front(), ctx.settings.call);
  }
  std::optional<StreamFixture> stream;
  if (const auto files = fixture_files(ctx.fixtures, "streams", ".sse"); !files.empty()) {
    stream = load_stream_fixture(files.front(), ctx.settings.call);
  }
  const auto round = [&] {
    Answers a;
    a.request_body = s.build(ready->provider, ctx.settings.call, request).request.body;
    if (response) {
      a.response = events_json(
          s.parse(ready->provider, response->call, response->status, response->headers, response->body).log);
    }
    if (stream && !stream->bytes.empty()) {
      a.stream = events_json(s.stream(ready->provider, stream->call, {stream->bytes}).log);
    }
    return a;
  };
  Answers reference;
  {
    Step step("one thread");
    reference = round();
  }
  std::atomic<int> differing{0};
  {
    Step step(std::to_string(kThreads) + " threads at once, " + std::to_string(kRounds) + " rounds each");
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kRounds; ++i) {
          if (!(round() == reference)) ++differing;
        }
      });
    }
    for (auto& th : threads) th.join();
  }
  if (differing > 0) {
    problem(std::to_string(differing.load()) + " of " + std::to_string(kThreads * kRounds) +
            " rounds on concurrent threads answered otherwise than one thread alone: instance hooks run "
            "concurrently; make the provider read-only after on_provider_new, or lock");
  }
}

}  // namespace

std::vector<Check> concurrency_checks() {
  return {{"provider.concurrency",
           "one provider on several threads at once gives every thread the single-thread answers",
           concurrency}};
}

}  // namespace mgw::testkit
