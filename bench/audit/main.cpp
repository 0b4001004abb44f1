// audit_bench: how many audit events per second the gateway can record and
// verify, against the real SQLite store. Eight threads record events of 100
// tenants as fast as they can while the writer appends them (linked into
// each tenant's chain, one transaction per batch); then every chain is
// verified. The baseline in the same run is the store's raw append rate for
// the same rows, already linked (what hashing and batching add).
#include "audit/audit_chain.h"
#include "audit/audit_log.h"
#include "audit/audit_verify.h"
#include "plugins/plugin_library.h"
#include "plugins/storage.h"

#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

using namespace modelgw;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const int events = argc > 1 ? std::atoi(argv[1]) : 200000;
  const auto dir = std::filesystem::temp_directory_path() / ("audit_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto library = plugins::PluginLibrary::load(
      std::filesystem::path(MODELGW_PLUGIN_DIR) / "mgw_storage_sqlite.so", MGW_KIND_STORAGE);
  plugins::Storage storage(library, nlohmann::json{{"path", (dir / "bench.db").string()}});
  auto now = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };

  // 1. Through the writer: record from 8 threads, appended every 50 ms.
  {
    audit::AuditOptions options;
    options.flush_interval = std::chrono::milliseconds(50);
    options.checkpoint_interval = std::chrono::hours(1);
    options.queue_limit = 10'000'000;
    audit::AuditLog log(storage, options, now);
    log.start();
    const auto began = Clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = t; i < events; i += 8) {
          log.record(audit::Event{1 + i % 100, "key 7 (tenant bench)", "pii.flagged", "request req_x",
                                  "req_000000000000000000000000",
                                  nlohmann::json{{"findings", {{"email", 1}}}}});
        }
      });
    }
    for (auto& t : threads) t.join();
    while (log.status().written < events) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const double s = std::chrono::duration<double>(Clock::now() - began).count();
    std::printf("recorded and appended: %d events in %.2f s = %.0f events/s\n", events, s, events / s);
    log.stop();
  }

  // 2. Baseline: the same number of rows, linked beforehand, appended in
  //    batches of 1000 straight to the store (tenants 1001..1100).
  {
    std::vector<plugins::AuditRow> rows;
    std::map<std::int64_t, std::pair<std::int64_t, std::string>> heads;
    for (int i = 0; i < events; ++i) {
      plugins::AuditRow r;
      r.tenant_id = 1001 + i % 100;
      r.created_unix_ms = now();
      r.actor = "key 7 (tenant bench)";
      r.action = "pii.flagged";
      r.target = "request req_x";
      r.request_id = "req_000000000000000000000000";
      r.details_json = R"({"findings":{"email":1}})";
      auto& h = heads[r.tenant_id];
      audit::link(r, h.first, h.second);
      h = {r.seq, r.hash};
      rows.push_back(std::move(r));
    }
    const auto began = Clock::now();
    for (std::size_t at = 0; at < rows.size(); at += 1000) {
      std::vector<plugins::AuditRow> batch(
          rows.begin() + static_cast<std::ptrdiff_t>(at),
          rows.begin() + static_cast<std::ptrdiff_t>(std::min(at + 1000, rows.size())));
      storage.append_audit(batch);
    }
    const double s = std::chrono::duration<double>(Clock::now() - began).count();
    std::printf("baseline, linked rows appended in batches of 1000: %.0f events/s\n", events / s);
  }

  // 3. Verification of every chain.
  {
    const auto began = Clock::now();
    std::int64_t verified = 0;
    int faults = 0;
    for (const auto& r : audit::verify_chains(storage, std::nullopt)) {
      verified += r.events;
      if (r.fault) ++faults;
    }
    const double s = std::chrono::duration<double>(Clock::now() - began).count();
    std::printf("verified: %lld events in %.2f s = %.0f events/s, %d chains with a fault\n",
                static_cast<long long>(verified), s, static_cast<double>(verified) / s, faults);
  }
  std::filesystem::remove_all(dir);
  return 0;
}
