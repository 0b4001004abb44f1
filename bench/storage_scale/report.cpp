#include "report.h"

#include <cstdio>
#include <functional>
#include <thread>

namespace storage_scale {
namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

double ratio(double a, double b) {
  return b > 0 ? a / b : 0;
}

// One line of the table: each backend's cell, and the number the last
// backend is compared with the first on.
struct Row {
  const char* label;
  std::function<std::string(const BackendResults&)> cell;
  std::function<double(const BackendResults&)> key;
};

Row rate(const char* label, Phase BackendResults::*p, Phase BackendResults::*one = nullptr) {
  return {label,
          [=](const BackendResults& r) {
            const double v = (r.*p).per_second;
            if (one == nullptr) return format("%.0f/s", v);
            return format("%.0f/s (x%.2f)", v, ratio(v, (r.*one).per_second));
          },
          [=](const BackendResults& r) { return (r.*p).per_second; }};
}

Row latency(const char* label, Phase BackendResults::*p, bool after = false,
            Phase BackendResults::*one = nullptr) {
  auto p50 = [=](const BackendResults& r) { return after ? (r.*p).after_p50_us : (r.*p).p50_us; };
  auto p99 = [=](const BackendResults& r) { return after ? (r.*p).after_p99_us : (r.*p).p99_us; };
  return {label,
          [=](const BackendResults& r) {
            if (one == nullptr) return format("%.1f / %.1f", p50(r), p99(r));
            const double base = after ? (r.*one).after_p50_us : (r.*one).p50_us;
            return format("%.1f / %.1f (x%.2f)", p50(r), p99(r), ratio(p50(r), base));
          },
          p50};
}

Row calls(const char* label, Phase BackendResults::*p) {
  return {label,
          [=](const BackendResults& r) {
            const Phase& ph = r.*p;
            const double k = ph.requests > 0 ? 1000.0 / static_cast<double>(ph.requests) : 0;
            return format("%.1f+%.1f+%.1f", static_cast<double>(ph.calls.leases()) * k,
                          static_cast<double>(ph.calls.idempotency()) * k,
                          static_cast<double>(ph.calls.usage_inserts()) * k) +
                   format(" = %.1f", ph.calls_per_1000());
          },
          [=](const BackendResults& r) { return (r.*p).calls_per_1000(); }};
}

void section(const char* title) {
  std::printf("\n%s\n", title);
}

void print_rows(const std::vector<BackendResults>& results, const std::vector<Row>& rows) {
  for (const auto& row : rows) {
    std::printf("  %-46s", row.label);
    for (const auto& r : results) std::printf("%-34s", row.cell(r).c_str());
    if (results.size() > 1) {
      const double first = row.key(results.front());
      if (first > 0) std::printf("x%.2f", row.key(results.back()) / first);
    }
    std::printf("\n");
  }
}

}  // namespace

std::vector<std::pair<const char*, const Phase*>> phases(const BackendResults& r) {
  return {{"usage_writes_one_instance", &r.usage_one},
          {"usage_writes_two_instances", &r.usage_two},
          {"spend_step_nothing_to_hold", &r.baseline},
          {"spend_step_one_instance", &r.spend_one},
          {"spend_step_two_instances", &r.spend_two},
          {"idempotency_new_key_one_instance", &r.keys_one},
          {"idempotency_new_key_two_instances", &r.keys_two},
          {"idempotency_replay_other_instance", &r.replay_two},
          {"served_one_instance", &r.served_one},
          {"served_two_instances", &r.served_two}};
}

void print_table(const Options& o, const std::vector<BackendResults>& results) {
  std::printf("\nstorage_scale_bench%s: %d callers per instance, %u hardware threads\n",
              o.quick ? " --quick" : "", o.threads, std::thread::hardware_concurrency());
  for (const auto& r : results) std::printf("  %s: %s\n", r.name.c_str(), r.detail.c_str());
  std::printf("\n  %-46s", "");
  for (const auto& r : results) std::printf("%-34s", r.name.c_str());
  if (results.size() > 1) std::printf("%s / %s", results.back().name.c_str(), results.front().name.c_str());
  std::printf("\n");
  using R = BackendResults;
  section("1. Usage records written per second (UsageWriter, batches of 256); (xN): two over one");
  print_rows(results, {rate("one instance", &R::usage_one),
                       rate("two instances at once", &R::usage_two, &R::usage_one)});
  section("2. Request-path cost, p50 / p99 us; (xN): p50 over one instance's");
  print_rows(results,
             {latency("spend step, nothing to hold (baseline)", &R::baseline),
              latency("spend step, one instance", &R::spend_one),
              latency("spend step, two instances", &R::spend_two, false, &R::spend_one),
              latency("idempotency claim, new key, one instance", &R::keys_one),
              latency("idempotency claim, new key, two instances", &R::keys_two, false, &R::keys_one),
              latency("idempotency keep (after answer), one", &R::keys_one, true),
              latency("idempotency keep (after answer), two", &R::keys_two, true, &R::keys_one),
              latency("idempotency replay of the other's key", &R::replay_two)});
  section("3. Throughput, spend step + usage record per request (until stored); (xN): two over one");
  print_rows(results,
             {rate("one instance", &R::served_one), rate("two instances", &R::served_two, &R::served_one)});
  section("4. Store calls per 1,000 requests: leases + idempotency + usage inserts = total");
  print_rows(results, {calls("spend step, one instance", &R::spend_one),
                       calls("spend step, two instances", &R::spend_two),
                       calls("idempotency new key, one instance", &R::keys_one),
                       calls("idempotency new key, two instances", &R::keys_two),
                       calls("idempotency replay, two instances", &R::replay_two),
                       calls("served (spend + usage), one instance", &R::served_one),
                       calls("served (spend + usage), two instances", &R::served_two),
                       calls("usage records alone (per 1,000 records)", &R::usage_one)});
  for (const auto& r : results) {
    for (const auto& [name, p] : phases(r)) {
      if (p->errors() == 0) continue;
      std::printf("ERRORS: %s %s: %lld requests refused or failed, %lld usage records not stored\n",
                  r.name.c_str(), name, static_cast<long long>(p->refused),
                  static_cast<long long>(p->unstored));
      if (p->refused > 0) std::printf("  the first refused: %s\n", p->first_refusal.c_str());
    }
  }
}

nlohmann::json to_json(const Options& o, const std::vector<BackendResults>& results) {
  nlohmann::json j;
  j["run"] = {{"quick", o.quick},
              {"threads_per_instance", o.threads},
              {"pool_size", o.pool_size},
              {"records_per_writer", o.records},
              {"spend_requests_per_thread", o.spend_requests},
              {"keyed_requests_per_thread", o.keyed_requests},
              {"served_requests_per_thread", o.served_requests},
              {"hardware_threads", std::thread::hardware_concurrency()}};
  for (const auto& r : results) {
    auto& b = j["backends"][r.name];
    b["detail"] = r.detail;
    for (const auto& [name, p] : phases(r)) {
      const auto& c = p->calls;
      b["phases"][name] = {{"instances", p->instances},
                           {"requests", p->requests},
                           {"refused", p->refused},
                           {"first_refusal", p->first_refusal},
                           {"unstored", p->unstored},
                           {"seconds", p->seconds},
                           {"per_second", p->per_second},
                           {"p50_us", p->p50_us},
                           {"p99_us", p->p99_us},
                           {"after_p50_us", p->after_p50_us},
                           {"after_p99_us", p->after_p99_us},
                           {"store_calls",
                            {{"lease_take", c[Hook::lease_take]},
                             {"lease_return", c[Hook::lease_return]},
                             {"lease_renew", c[Hook::lease_renew]},
                             {"ledger_read", c[Hook::ledger_read]},
                             {"idempotency_claim", c[Hook::claim]},
                             {"idempotency_complete", c[Hook::complete]},
                             {"idempotency_release", c[Hook::release]},
                             {"usage_insert", c[Hook::usage_insert]},
                             {"total", c.total()}}},
                           {"store_calls_per_1000", p->calls_per_1000()}};
    }
    b["ratios"] = {{"usage_two_over_one", ratio(r.usage_two.per_second, r.usage_one.per_second)},
                   {"spend_p50_two_over_one", ratio(r.spend_two.p50_us, r.spend_one.p50_us)},
                   {"spend_p50_over_baseline", ratio(r.spend_one.p50_us, r.baseline.p50_us)},
                   {"claim_p50_two_over_one", ratio(r.keys_two.p50_us, r.keys_one.p50_us)},
                   {"served_two_over_one", ratio(r.served_two.per_second, r.served_one.per_second)}};
  }
  if (results.size() > 1) {
    const auto& a = results.front();
    const auto& z = results.back();
    j["ratios"][z.name + "_over_" + a.name] = {
        {"usage_one_instance", ratio(z.usage_one.per_second, a.usage_one.per_second)},
        {"spend_p50_one_instance", ratio(z.spend_one.p50_us, a.spend_one.p50_us)},
        {"claim_p50_one_instance", ratio(z.keys_one.p50_us, a.keys_one.p50_us)},
        {"served_one_instance", ratio(z.served_one.per_second, a.served_one.per_second)},
        {"served_two_instances", ratio(z.served_two.per_second, a.served_two.per_second)}};
  }
  return j;
}

}  // namespace storage_scale
