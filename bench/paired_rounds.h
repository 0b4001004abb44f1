// (a) and (b) in rounds: with --rounds N the proxies take turns N times, and
// every ratio is taken within one round, between passes a minute apart at
// most. A shared machine's load drifts over a run (the same build read 2.26x
// to 2.60x nginx's CPU in four runs back to back); passes side by side see
// the same drift, so a ratio of two of them moves far less than either pass.
// The report gives each ratio's median and range over the rounds; the
// one-run table keeps, per proxy, its pass with the median figure.
#pragma once

#include "scenarios.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <vector>

namespace bench {

// One round's passes; a scenario left out (or a proxy not run) stays empty.
struct Round {
  // (a) at saturation: nginx, modelgw's plain path, its money path, and the
  // plain path with a new Idempotency-Key on every request.
  std::optional<PassResult> nginx, plain, money, keyed;
  // (b) at a fixed rate: the mock alone (for "added" latency) and the three.
  std::optional<OpenLoopResult> direct, nginx_latency, plain_latency, money_latency;
};

// The median and range of the values that were measured (not negative).
struct Spread {
  int n = 0;
  double median = -1;  // the lower middle value of an even count
  double min = -1;
  double max = -1;
};
Spread spread(std::vector<double> values);

// Index into `figures` of the median measured one (the lower middle of an
// even count); -1 when none was measured.
int median_index(const std::vector<double>& figures);

// Every round's ratio of each pair the issue sets a target on, as a median
// and range (only with more than one round).
void print_rounds(const std::vector<Round>& rounds, std::ostream& out);
nlohmann::json rounds_json(const std::vector<Round>& rounds);

}  // namespace bench
