// The comparison's results, nginx and modelgw side by side with the ratio
// modelgw / nginx and the targets: the summary on stdout and JSON.
#pragma once

#include "paired_rounds.h"
#include "scenarios.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bench {

// One proxy's results; a scenario left out or not reached stays empty.
struct TargetRun {
  std::optional<PassResult> saturation;
  std::optional<OpenLoopResult> latency;
  std::optional<SseScenario> sse;
  std::optional<AttackScenario> attack;
};

struct Comparison {
  ScenarioSettings settings;
  std::size_t body_bytes = 0;
  std::string pii_mode;
  bool access_log = true;
  std::string nginx_version;
  std::string nginx_error;                       // nginx could not be run: modelgw alone, no ratios
  std::optional<OpenLoopResult> direct_latency;  // (b) against the mock directly
  TargetRun nginx;
  TargetRun gateway;  // the plain path (tenant bench)
  TargetRun money;    // the money path (tenant money, X-Feature): (a) and (b) only
  // (a) through modelgw on the plain path, each request with a new
  // Idempotency-Key (a store write per request), over gateway.saturation.
  std::optional<PassResult> idempotency_key;
  // With --rounds N (N > 1): every round's passes of (a) and (b); the fields
  // above then hold each proxy's pass with the median figure.
  std::vector<Round> rounds;

  // Failures that make the run's exit code 1: errors in (a), (b) (any
  // round's pass) or (c) on any side. The attacker scenario's client errors
  // are its result, not a failure of the run.
  std::uint64_t failures() const;
};

void print_comparison(const Comparison& c, std::ostream& out);
nlohmann::json comparison_json(const Comparison& c);

}  // namespace bench
