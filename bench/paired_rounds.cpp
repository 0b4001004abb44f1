#include "paired_rounds.h"

#include "report_format.h"

#include <algorithm>

namespace bench {
namespace {

// p50 over the mock's own p50 in the same round.
double added_p50(const std::optional<OpenLoopResult>& r, const std::optional<OpenLoopResult>& direct) {
  if (!r || !direct || r->ok == 0 || direct->ok == 0) return -1;
  return static_cast<double>(r->latency.p50_us) - static_cast<double>(direct->latency.p50_us);
}
double paired(double a, double b) {
  return a >= 0 && b > 0 ? a / b : -1;
}

// A pair the issue sets a target on: `of` gives one round's ratio.
struct PairedRatio {
  const char* key;    // in the JSON
  const char* label;  // in the summary
  double target;
  bool at_most;  // the target is a ceiling (else a floor)
  double (*of)(const Round&);
};

const PairedRatio kRatios[] = {
    {"cpu_per_request", "plain: CPU per request / nginx", 2.0, true,
     [](const Round& r) { return paired(cpu_of(r.plain), cpu_of(r.nginx)); }},
    {"max_rps", "plain: max RPS / nginx", 0.5, false,
     [](const Round& r) { return paired(rps_of(r.plain), rps_of(r.nginx)); }},
    {"p99_latency", "plain: p99 at saturation / nginx", 2.0, true,
     [](const Round& r) { return paired(p99_of(r.plain), p99_of(r.nginx)); }},
    {"money_cpu_per_request", "money: CPU per request / nginx", 2.0, true,
     [](const Round& r) { return paired(cpu_of(r.money), cpu_of(r.nginx)); }},
    {"money_over_plain_cpu", "money CPU / plain CPU", 1.10, true,
     [](const Round& r) { return paired(cpu_of(r.money), cpu_of(r.plain)); }},
    {"new_key_over_plain_cpu", "new key CPU / plain CPU", 1.5, true,
     [](const Round& r) { return paired(cpu_of(r.keyed), cpu_of(r.plain)); }},
    {"added_median_latency", "plain: added p50 / nginx's", 1.1, true,
     [](const Round& r) {
       return paired(added_p50(r.plain_latency, r.direct), added_p50(r.nginx_latency, r.direct));
     }},
    {"money_added_median_latency", "money: added p50 / nginx's", 1.1, true,
     [](const Round& r) {
       return paired(added_p50(r.money_latency, r.direct), added_p50(r.nginx_latency, r.direct));
     }},
};

std::vector<double> per_round(const std::vector<Round>& rounds, const PairedRatio& ratio) {
  std::vector<double> out;
  out.reserve(rounds.size());
  for (const Round& r : rounds) out.push_back(ratio.of(r));
  return out;
}

}  // namespace

Spread spread(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return v < 0; }), values.end());
  Spread s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.median = values[(values.size() - 1) / 2];
  s.min = values.front();
  s.max = values.back();
  return s;
}

int median_index(const std::vector<double>& figures) {
  std::vector<int> measured;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    if (figures[i] >= 0) measured.push_back(static_cast<int>(i));
  }
  if (measured.empty()) return -1;
  std::sort(measured.begin(), measured.end(), [&](int a, int b) { return figures[a] < figures[b]; });
  return measured[(measured.size() - 1) / 2];
}

void print_rounds(const std::vector<Round>& rounds, std::ostream& out) {
  if (rounds.size() < 2) return;
  out << strf(
      "(a, b) %zu rounds, each ratio taken within a round: median [lowest .. highest] of the rounds\n",
      rounds.size());
  for (const PairedRatio& ratio : kRatios) {
    const Spread s = spread(per_round(rounds, ratio));
    if (s.n == 0) continue;
    const bool met = ratio.at_most ? s.median <= ratio.target : s.median >= ratio.target;
    out << strf("  %-34s %6.2fx [%.2f .. %.2f] of %d   %s %.2fx: %s\n", ratio.label, s.median, s.min, s.max,
                s.n, ratio.at_most ? "<=" : ">=", ratio.target, met ? "MET" : "NOT MET");
  }
}

nlohmann::json rounds_json(const std::vector<Round>& rounds) {
  nlohmann::json j = nlohmann::json::object();
  for (const PairedRatio& ratio : kRatios) {
    const std::vector<double> values = per_round(rounds, ratio);
    const Spread s = spread(values);
    if (s.n == 0) continue;
    j[ratio.key] = {{"rounds", values}, {"median", s.median}, {"min", s.min}, {"max", s.max}};
  }
  return j;
}

}  // namespace bench
