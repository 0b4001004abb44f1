// spend_bench: see README.md.
#include "budget/admission.h"
#include "budget/ledger.h"
#include "plugins/plugin_library.h"
#include "plugins/storage.h"
#include "usage/usage_query.h"
#include "usage/usage_writer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace modelgw;
using Clock = std::chrono::steady_clock;

namespace {

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// Counts lease calls to the store.
class CountingLeases : public budget::StorageLeases {
 public:
  using StorageLeases::StorageLeases;
  plugins::LeaseGrant take(const plugins::LeaseRequest& r) override {
    ++takes;
    return StorageLeases::take(r);
  }
  std::atomic<long> takes{0};
};

// Runs admit+settle `per_thread` times on each of `threads` threads, each
// with its own io_context (a loop); returns the per-call latencies in µs.
std::vector<double> run_spend(budget::SpendControl& spend, const budget::TenantSpend& tenant, int threads,
                              int per_thread) {
  std::vector<std::vector<double>> lat(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      net::asio::io_context io;
      auth::Principal principal{1, "bench", 1, "chat", ""};
      auto& out = lat[static_cast<std::size_t>(t)];
      out.reserve(static_cast<std::size_t>(per_thread));
      net::asio::co_spawn(
          io,
          [&]() -> net::Task<void> {
            for (int i = 0; i < per_thread; ++i) {
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
              if (!a.refusal) spend.settle(a, 30, 120, charges);
              out.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
            }
          },
          net::asio::detached);
      io.run();
    });
  }
  for (auto& t : pool) t.join();
  std::vector<double> all;
  for (auto& v : lat) all.insert(all.end(), v.begin(), v.end());
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  long records = 1'000'000;
  int threads = 64;
  int requests = 2000;  // per thread
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--records") records = std::atol(argv[i + 1]);
    if (flag == "--threads") threads = std::atoi(argv[i + 1]);
    if (flag == "--requests") requests = std::atoi(argv[i + 1]);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("spend_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto library = plugins::PluginLibrary::load(
      std::filesystem::path(MODELGW_PLUGIN_DIR) / "mgw_storage_sqlite.so", MGW_KIND_STORAGE);
  plugins::Storage storage(library, nlohmann::json{{"path", (dir / "bench.db").string()}});
  const std::int64_t tenant_id = storage.create_tenant("bench", now_ms());

  // 1. The spend step.
  budget::TenantSpend tenant;
  tenant.budgets.push_back(plugins::BudgetRow{
      storage.create_budget({0, tenant_id, "tenant", "", "", "month", 1'000'000'000'000, now_ms()}),
      tenant_id, "tenant", "", "", "month", 1'000'000'000'000, 0});
  tenant.budgets.push_back(plugins::BudgetRow{
      storage.create_budget({0, tenant_id, "credit", "", "", "none", 1'000'000'000'000, now_ms()}), tenant_id,
      "credit", "", "", "none", 1'000'000'000'000, 0});
  tenant.rate_limits.tenant_requests = 100'000'000;
  tenant.rate_limits.tenant_tokens = 100'000'000'000;
  tenant.prepare(tenant_id, "bench");
  CountingLeases leases(storage);
  budget::Ledger ledger(leases, budget::LedgerOptions{30000, 5000, 10, "bench"}, &now_ms);
  net::BlockingPool blocking(8);
  budget::SpendControl spend(ledger, blocking, budget::AdmissionOptions{16}, &now_ms);
  const budget::TenantSpend nothing;
  (void)run_spend(spend, tenant, 1, 10);  // leases taken, code warm
  const auto base = run_spend(spend, nothing, threads, requests);
  const long takes_before = leases.takes;
  const auto held = run_spend(spend, tenant, threads, requests);
  std::printf("spend step, %d threads x %d requests (2 budgets + 2 rate limits):\n", threads, requests);
  std::printf("  held:      p50 %.2f us  p99 %.2f us  store calls %ld\n", percentile(held, 0.5),
              percentile(held, 0.99), leases.takes - takes_before);
  std::printf("  baseline (nothing to hold): p50 %.2f us  p99 %.2f us\n", percentile(base, 0.5),
              percentile(base, 0.99));

  // 2. The usage writer.
  usage::UsageWriter writer(storage, std::make_unique<usage::UsageJournal>((dir / "usage.journal").string()),
                            usage::WriterOptions{200, 256, 2'000'000});
  writer.start();
  const std::int64_t month_start = now_ms() - 20LL * 86'400'000;
  const auto write_start = Clock::now();
  for (long i = 0; i < records; ++i) {
    plugins::UsageRow row;
    row.request_id = "req_" + std::to_string(i);
    row.tenant_id = tenant_id;
    row.key_id = 1 + i % 5;
    row.alias = i % 3 == 0 ? "gpt-4.1" : "claude-sonnet-4-5";
    row.provider = "openai";
    row.upstream_model = row.alias;
    row.prompt_tokens = 100 + i % 50;
    row.completion_tokens = 20 + i % 30;
    row.total_tokens = row.prompt_tokens + row.completion_tokens;
    row.http_status = i % 20 == 0 ? 502 : 200;
    row.created_unix_ms = month_start + i * (20LL * 86'400'000 / records);
    row.cost_micros = 1000 + i % 777;
    row.feature = i % 4 == 0 ? "search" : "";
    writer.enqueue(std::move(row));
  }
  writer.stop();
  const double write_s = std::chrono::duration<double>(Clock::now() - write_start).count();
  std::printf("usage writer: %lu records in %.1f s: %.0f records/s\n",
              static_cast<unsigned long>(writer.written()), write_s,
              static_cast<double>(writer.written()) / write_s);

  // 3. GET /v1/usage over them.
  usage::StorageUsageStore store(storage);
  auto timed = [&](const std::string& query) {
    std::vector<double> ms;
    std::size_t bytes = 0;
    for (int i = 0; i < 20; ++i) {
      const auto start = Clock::now();
      auto answer = usage::answer_usage_query(query, tenant_id, store, now_ms());
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      bytes = answer.body.size();
      if (answer.error) std::printf("  error: %s\n", answer.error->message.c_str());
    }
    std::printf("  GET /v1/usage?%s: p50 %.1f ms  max %.1f ms (%zu bytes)\n", query.c_str(),
                percentile(ms, 0.5), percentile(ms, 1.0), bytes);
  };
  std::printf("GET /v1/usage over %ld records of one tenant:\n", records);
  timed("limit=100&from=" + std::to_string(month_start / 1000 + 1234));
  timed("limit=100&model=gpt-4.1&status=success&from=" + std::to_string(month_start / 1000 + 1234));
  timed("group_by=day&from=" + std::to_string(month_start / 1000 + 1234));
  std::filesystem::remove_all(dir);
  return 0;
}
