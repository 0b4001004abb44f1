#include "chat/chat_endpoint.h"

#include "chat/record.h"
#include "chat/route_plan.h"
#include "chat/spend_stage.h"
#include "chat/upstream_attempt.h"
#include "logging/request_log.h"
#include "plugins/storage_failure.h"
#include "util/json_write.h"

namespace modelgw::chat {

void ChatEndpoint::answer_error(http::ServerCall& call, errors::ApiError error, Outcome& outcome) const {
  chat::answer_error(call, std::move(error), outcome, deps_.redactor);
}

net::Task<void> ChatEndpoint::handle(http::ServerCall& call, const auth::Principal& principal,
                                     const FrontDoor* door) {
  Outcome outcome;
  open_outcome(outcome, call, principal);
  outcome.door = door;
  if (door != nullptr) outcome.row.operation = std::string(door->operation());
  outcome.metrics = deps_.metrics;
  std::optional<errors::ApiError> crashed;
  try {
    switch (door != nullptr ? door->chain() : FrontDoor::Chain::chat) {
      case FrontDoor::Chain::chat:
        co_await serve(call, outcome);
        break;
      case FrontDoor::Chain::embeddings:
        co_await serve_embeddings(call, outcome);
        break;
      case FrontDoor::Chain::count_tokens:
        co_await serve_count_tokens(call, outcome);
        break;
    }
  } catch (const std::exception& e) {
    logging::for_request(call.request_id()).error("unexpected failure: {}", e.what());
    // Storage that cannot be reached is the one expected failure here: 503.
    crashed = plugins::storage_unreachable(e) ? plugins::storage_failure_error(e) : errors::internal_error();
  }
  if (crashed) {
    if (outcome.row.error_code.empty()) outcome.row.error_code = crashed->code;
    if (!call.answered()) answer_error(call, std::move(*crashed), outcome);
  }
  // The ends of the stages, in reverse: settle the hold, record, finish the key.
  settle_spend(outcome, deps_.catalog, deps_.spend);
  const bool keep = keeps_answer(call, outcome);  // read before the record takes the row
  if (outcome.recorded) record_outcome(outcome, call, deps_.usage);
  if (outcome.idempotent) co_await finish_idempotency_key(call, outcome, keep);
}

// The chain, in order. Each stage answers the call itself when it ends it
// (false); what one hands the next is in `flow`. The ends of the stages run in
// handle(), whatever way the chain stopped.
net::Task<void> ChatEndpoint::serve(http::ServerCall& call, Outcome& outcome) {
  Flow flow;
  if (!admit(call, outcome)) co_return;               // body size, recordability
  if (!read_headers(call, flow, outcome)) co_return;  // Idempotency-Key, X-Feature
  if (!read_body(call, flow, outcome)) co_return;     // one JSON parse
  if (flow.idempotency_key &&
      !co_await take_idempotency_key(call, std::move(*flow.idempotency_key), flow.doc, outcome))
    co_return;                                              // idempotency_stage.cpp
  if (!co_await open_door(call, flow, outcome)) co_return;  // the door's translation, or a named prompt
  if (!validate(call, flow, outcome)) co_return;            // the chat request, its alias
  if (deps_.spend != nullptr && !co_await hold_requests(call, outcome)) co_return;         // spend_stage.cpp
  if (deps_.pii != nullptr && !co_await apply_pii_policy(call, flow, outcome)) co_return;  // pii_stage.cpp
  if (outcome.shaper) outcome.shaper->sent(flow.text, outcome.row.pii_action == "flagged");
  if (!route(call, flow, outcome)) co_return;  // the models that may serve it (route_plan.cpp)
  if (deps_.spend != nullptr && !co_await hold_spend(call, *flow.request, flow.routing, flow.text, outcome))
    co_return;
  co_await exchange(call, flow, outcome);  // upstream_attempt.cpp, sse_relay.cpp, the door's relay
}

bool ChatEndpoint::route(http::ServerCall& call, Flow& flow, Outcome& outcome) const {
  flow.routing = plan_routes(*flow.candidates, *flow.request, flow.text, flow.native_operation);
  if (!flow.routing.plans.empty()) return true;
  const auto& first = flow.candidates->front()->entry;
  outcome.row.alias = first.alias;
  outcome.row.provider = first.provider;
  outcome.row.upstream_model = first.model;
  answer_error(call, *flow.routing.refusal, outcome);
  return false;
}

net::Task<void> ChatEndpoint::exchange(http::ServerCall& call, Flow& flow, Outcome& outcome) {
  ChatRequest& req = *flow.request;
  // The parsed document is not read past routing: free it before the upstream
  // exchange, so a large body is not held twice while the call runs.
  req.doc = nlohmann::json();
  if (!flow.native_doc.is_null()) {
    // Serialised only when the door had no text of it, or the PII stage masked it.
    if (flow.native_text.empty()) flow.native_text = util::json_text(flow.native_doc, flow.text.size());
    flow.native_doc = nlohmann::json();
  }
  const std::vector<mgw_header> forwarded = forwarded_client_headers(call, outcome.door);
  const auto budget_end = std::chrono::steady_clock::now() + policy_.budget();
  const metrics::OpenStream open_stream(deps_.metrics, req.stream);
  errors::ApiError last_error;
  for (const RoutePlan& plan : flow.routing.plans) {
    AttemptContext attempt{call, req, plan, policy_, deps_.redactor, budget_end, outcome};
    attempt.native_operation = flow.native_operation;
    attempt.native_body = flow.native_text;
    if (!flow.native_operation.empty()) attempt.native_limit_member = outcome.door->output_limit_member();
    attempt.client_headers = forwarded;
    if (co_await try_model(attempt, flow.text, last_error)) co_return;
    logging::for_request(call.request_id())
        .warn("model '{}' failed with {} {}; {}", plan.route->entry.alias, last_error.status, last_error.code,
              &plan == &flow.routing.plans.back() ? "no model left to try"
                                                  : "trying the next model of the route");
  }
  answer_error(call, last_error, outcome);
}

}  // namespace modelgw::chat
