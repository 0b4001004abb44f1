#include "scenarios.h"

#include "auth/principal.h"
#include "callers.h"
#include "http/server_call.h"

#include <memory>
#include <thread>
#include <vector>

namespace storage_scale {

using namespace modelgw;

namespace {

// The request digest and answer an idempotent chat request keeps: a sha256
// hex digest and a typical non-streamed completion.
const std::string kDigest(64, 'a');
const std::string kAnswer =
    R"({"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,"model":"gpt-4.1",)"
    R"("choices":[{"index":0,"message":{"role":"assistant","content":"A short answer of about the size )"
    R"(a chat model gives to a short question, a few sentences long, so the kept row is realistic."},)"
    R"("finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":30,"total_tokens":80}})";

// Writes go nowhere: the step is measured, not the socket.
class NullChannel : public http::ResponseChannel {
 public:
  net::Task<bool> write(std::string_view) override { co_return true; }
};

void fill_latency(Phase& p, const CallerRun& run) {
  p.requests = run.requests;
  p.refused = run.samples.refused;
  p.first_refusal = run.samples.first_refusal;
  p.seconds = run.seconds;
  p.per_second = run.seconds > 0 ? static_cast<double>(run.requests) / run.seconds : 0;
  p.p50_us = percentile(run.samples.step, 0.5);
  p.p99_us = percentile(run.samples.step, 0.99);
  p.after_p50_us = percentile(run.samples.after, 0.5);
  p.after_p99_us = percentile(run.samples.after, 0.99);
}

plugins::UsageRow usage_row(std::int64_t tenant_id, std::string request_id, std::int64_t i,
                            std::int64_t now) {
  plugins::UsageRow row;
  row.request_id = std::move(request_id);
  row.tenant_id = tenant_id;
  row.key_id = 1 + i % 5;
  row.alias = i % 3 == 0 ? "gpt-4.1" : "claude-sonnet-4-5";
  row.provider = "openai";
  row.upstream_model = row.alias;
  row.prompt_tokens = 100 + i % 50;
  row.completion_tokens = 20 + i % 30;
  row.total_tokens = row.prompt_tokens + row.completion_tokens;
  row.http_status = i % 20 == 0 ? 502 : 200;
  row.created_unix_ms = now - i % 86'400'000;
  row.cost_micros = 1000 + i % 777;
  row.feature = i % 4 == 0 ? "search" : "";
  return row;
}

// One spend step; with a writer, the request's usage record after it.
net::Task<void> spend_once(budget::SpendControl& spend, const budget::TenantSpend& tenant,
                           std::int64_t tenant_id, Samples& out, usage::UsageWriter* writer,
                           std::string request_id, std::int64_t i) {
  const auth::Principal principal{tenant_id, "bench", 1, "chat", ""};
  budget::SpendRequest r;
  r.principal = &principal;
  r.spend = &tenant;
  r.prompt_tokens = 50;
  r.client_max_tokens = 100;
  r.default_output_tokens = 100;
  r.prices = pricing::Prices{150'000, 600'000, 75'000};
  const auto start = Clock::now();
  budget::Admission a = co_await spend.admit(r);
  std::vector<mgw_ledger_charge> charges;
  if (a.refusal) {
    out.refuse(std::to_string(a.refusal->status) + " " + a.refusal->code + ": " + a.refusal->message);
  } else {
    spend.settle(a, 30, 120, charges);
  }
  out.step.push_back(micros(Clock::now() - start));
  if (writer != nullptr && !a.refusal) {
    auto row = usage_row(tenant_id, std::move(request_id), i, now_unix_ms());
    row.charges = std::move(charges);
    writer->enqueue(std::move(row));
  }
}

// One idempotent request: the claim, the answer, the keep (or, for a kept
// key, the replay).
net::Task<void> keyed_once(idempotency::KeyKeeper& keys, std::int64_t tenant_id, std::string key,
                           std::string request_id, bool replay, Samples& out) {
  NullChannel channel;
  net::CancelSignal hangup;
  http::Request request;
  request.method = "POST";
  request.target = "/v1/chat/completions";
  http::ServerCall call(std::move(request), std::move(request_id), channel, hangup,
                        co_await net::asio::this_coro::executor);
  const auto start = Clock::now();
  auto step = co_await keys.begin(call, tenant_id, std::move(key), kDigest);
  out.step.push_back(micros(Clock::now() - start));
  const auto why = [&] {
    return step.refusal ? std::to_string(step.refusal->status) + " " + step.refusal->code + ": " +
                              step.refusal->message
                        : std::string(replay ? "not answered from the kept key" : "the key was not claimed");
  };
  if (replay) {
    if (!step.answered) out.refuse(why());
    co_return;
  }
  if (!step.flight) {
    out.refuse(why());
    co_return;
  }
  call.send_json(200, kAnswer);  // the tap captures it for the flight
  (void)co_await call.flush();
  const auto kept = Clock::now();
  // finish() returns at once; the answer is kept when its lingering batch
  // is written, which the flight says (polled: a bench has no follower).
  auto flight = step.flight;
  keys.finish(std::move(step.flight), true);
  net::asio::steady_timer poll(co_await net::asio::this_coro::executor);
  for (int i = 0; i < 100'000 && flight->view(0).state != idempotency::Flight::State::done; ++i) {
    poll.expires_after(std::chrono::microseconds(100));
    co_await poll.async_wait(net::use_awaitable);
  }
  out.after.push_back(micros(Clock::now() - kept));
}

std::string key_of(const std::string& tag, int instance, int thread, int i) {
  return tag + "-" + std::to_string(instance) + "-" + std::to_string(thread) + "-" + std::to_string(i);
}

}  // namespace

Phase write_usage(Backend& b, int instances, std::int64_t records, const std::string& tag) {
  Phase p;
  p.instances = instances;
  const auto before = b.calls();
  std::vector<std::unique_ptr<usage::UsageWriter>> writers;
  for (int n = 0; n < instances; ++n) {
    // The producer outruns any store, and the measure is how fast the
    // writer empties the queue: room for twice the run, because a writer
    // whose queue passes half its limit spills it to the journal instead.
    writers.push_back(
        b.instance(n).usage_writer(tag + "-" + std::to_string(n), 2 * static_cast<std::size_t>(records) + 2));
  }
  const std::int64_t now = now_unix_ms();
  const auto start = Clock::now();
  std::vector<std::thread> producers;
  for (int n = 0; n < instances; ++n) {
    producers.emplace_back([&, n] {
      auto& w = *writers[static_cast<std::size_t>(n)];
      for (std::int64_t i = 0; i < records; ++i) {
        w.enqueue(usage_row(b.tenant_id(), key_of(tag, n, 0, static_cast<int>(i)), i, now));
      }
      w.stop();
    });
  }
  for (auto& t : producers) t.join();
  p.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::int64_t written = 0;
  for (auto& w : writers) written += static_cast<std::int64_t>(w->written());
  p.requests = written;
  p.unstored = records * instances - written;
  p.per_second = static_cast<double>(written) / p.seconds;
  p.calls = b.calls() - before;
  return p;
}

Phase spend_step(Backend& b, int instances, bool held, int threads, int per_thread) {
  Phase p;
  p.instances = instances;
  const auto& tenant = held ? b.held() : b.nothing();
  const auto before = b.calls();
  const auto run = run_callers(instances, threads, per_thread, [&](int n, int, int i, Samples& out) {
    return spend_once(b.instance(n).spend(), tenant, b.tenant_id(), out, nullptr, {}, i);
  });
  p.calls = b.calls() - before;
  fill_latency(p, run);
  return p;
}

Phase new_keys(Backend& b, int instances, int threads, int per_thread, const std::string& tag) {
  Phase p;
  p.instances = instances;
  const auto before = b.calls();
  const auto run = run_callers(instances, threads, per_thread, [&](int n, int t, int i, Samples& out) {
    return keyed_once(b.instance(n).keys(), b.tenant_id(), key_of(tag, n, t, i),
                      "req_" + key_of(tag, n, t, i), false, out);
  });
  p.calls = b.calls() - before;
  fill_latency(p, run);
  return p;
}

Phase replays(Backend& b, int threads, int per_thread, const std::string& tag) {
  Phase p;
  p.instances = 2;
  const auto before = b.calls();
  const auto run = run_callers(2, threads, per_thread, [&](int n, int t, int i, Samples& out) {
    return keyed_once(b.instance(n).keys(), b.tenant_id(), key_of(tag, 1 - n, t, i),
                      "req_replay_" + key_of(tag, n, t, i), true, out);
  });
  p.calls = b.calls() - before;
  fill_latency(p, run);
  return p;
}

Phase served(Backend& b, int instances, int threads, int per_thread, const std::string& tag) {
  Phase p;
  p.instances = instances;
  std::vector<std::unique_ptr<usage::UsageWriter>> writers;
  // Room for twice the run's records (see write_usage): what is measured is
  // the store keeping up, not the queue limit refusing or spilling.
  const auto queue = 2 * static_cast<std::size_t>(threads) * static_cast<std::size_t>(per_thread) + 2;
  for (int n = 0; n < instances; ++n) {
    writers.push_back(b.instance(n).usage_writer(tag + "-" + std::to_string(n), queue));
  }
  const auto before = b.calls();
  const auto start = Clock::now();
  const auto run = run_callers(instances, threads, per_thread, [&](int n, int t, int i, Samples& out) {
    return spend_once(b.instance(n).spend(), b.held(), b.tenant_id(), out,
                      writers[static_cast<std::size_t>(n)].get(), "req_" + key_of(tag, n, t, i), i);
  });
  std::int64_t written = 0;
  for (auto& w : writers) {
    w->stop();  // every record stored: part of the work the requests made
    written += static_cast<std::int64_t>(w->written());
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  p.calls = b.calls() - before;
  fill_latency(p, run);
  p.seconds = seconds;
  p.per_second = static_cast<double>(run.requests) / seconds;
  p.unstored = run.requests - run.samples.refused - written;
  return p;
}

}  // namespace storage_scale
