#include "chat/outcome_metrics.h"

#include <algorithm>

namespace modelgw::chat {

void observe_outcome(metrics::Registry* registry, const Outcome& outcome) noexcept {
  if (registry == nullptr) return;
  const auto& row = outcome.row;
  metrics::ChatObservation o;
  o.alias = row.alias;
  o.provider = row.provider;
  o.status = row.http_status;
  o.error_code = row.error_code;
  o.latency_us = row.latency_us;
  o.upstream_us = outcome.attempts > 0 ? outcome.upstream_us : -1;
  o.ttft_us = row.ttft_us;
  o.input_tokens = row.prompt_tokens;
  o.output_tokens = row.completion_tokens;
  o.cached_input_tokens = row.cached_prompt_tokens;
  o.cost_micros = row.cost_micros;
  // attempts counts every try at every model; models, the models tried.
  o.retries = std::max(0, outcome.attempts - outcome.models);
  o.fallbacks = std::max(0, outcome.models - 1);
  o.streamed = outcome.streamed;
  o.pii_action = row.pii_action;
  o.pii_findings = row.pii_findings;
  o.refusal = row.reason;
  o.operation = row.operation;
  registry->observe_chat(o);
}

}  // namespace modelgw::chat
