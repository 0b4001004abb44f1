// What one chat call amounted to, filled in as it passes the stages and
// written as its usage record at the end (chat/record.cpp).
#pragma once

#include "auth/principal.h"
#include "budget/admission.h"
#include "chat/front_door.h"
#include "errors/api_error.h"
#include "idempotency/flight.h"
#include "plugins/storage.h"

#include <memory>
#include <optional>

namespace modelgw::metrics {
class Registry;
}

namespace modelgw::chat {

struct Outcome {
  const auth::Principal* principal = nullptr;
  plugins::UsageRow row;
  bool streamed = false;
  int attempts = 0;
  // For metrics (chat/outcome_metrics.h): the models tried, the time spent
  // in upstream tries, and where the call is counted (nullptr: nowhere).
  int models = 0;
  std::int64_t upstream_us = 0;
  modelgw::metrics::Registry* metrics = nullptr;
  // The spend step's hold (none when nothing limits the tenant), and the
  // tenant's budgets it points into.
  std::shared_ptr<const budget::TenantSpend> spend;
  std::optional<budget::Admission> admission;
  // The request-rate part, held before any other work on the request (the
  // PII scan, the money hold): a refused request counts too.
  std::optional<budget::Admission> requests_admission;
  // False for a request refused because usage cannot be recorded: it was not
  // served, and queueing its record would grow the memory it protects.
  bool recorded = true;
  // Set when this request holds an Idempotency-Key and makes the call: its
  // answer is kept for retries, or the key freed, when it ends.
  std::shared_ptr<idempotency::Flight> idempotent;
  // The front door the call came through (nullptr: chat completions), and,
  // once its request was translated, the writer of its answer: from then on
  // errors name the door's parameters.
  const FrontDoor* door = nullptr;
  std::unique_ptr<AnswerShaper> shaper;
};

// How one try at one model ended.
struct Attempt {
  enum Kind { served, failed, cancelled } kind = served;
  errors::ApiError error;  // for `failed`: nothing was sent to the client yet
};

}  // namespace modelgw::chat
