#include "chat/chat_endpoint.h"

#include "chat/body_members.h"

#include "audit/pii_events.h"
#include "budget/feature_name.h"
#include "chat/record.h"
#include "chat/route_plan.h"
#include "chat/spend_stage.h"
#include "chat/upstream_attempt.h"
#include "idempotency/idempotency_key.h"
#include "logging/request_log.h"
#include "plugins/storage_failure.h"
#include "prompts/prompt_invocation.h"

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
    co_await serve(call, outcome);
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

net::Task<void> ChatEndpoint::serve(http::ServerCall& call, Outcome& outcome) {
  const http::Request& http_request = call.request();
  if (http_request.body_too_large) {
    answer_error(call,
                 errors::ApiError{413,
                                  "request_too_large",
                                  "the request body is larger than this gateway accepts (" +
                                      std::to_string(deps_.max_body_bytes) + " bytes)",
                                  {}},
                 outcome);
    co_return;
  }
  // Nothing is served that cannot be recorded (usage_writer.h), nor while
  // audit events can be neither stored nor journaled (audit_log.h).
  if (!deps_.usage.recording() || (deps_.audit != nullptr && !deps_.audit->recording())) {
    outcome.recorded = false;
    answer_error(
        call,
        errors::ApiError{503,
                         "usage_unrecordable",
                         "the gateway cannot record usage right now (its store and its local journal both "
                         "refuse writes, or too many records wait); nothing was sent upstream, retry shortly",
                         {},
                         1,
                         true},
        outcome);
    co_return;
  }
  // The Idempotency-Key is checked before the body: a malformed one is the
  // same mistake whatever the body.
  auto idempotency_key = idempotency::read_key(http_request);
  if (auto* err = std::get_if<errors::ApiError>(&idempotency_key))
    co_return answer_error(call, *err, outcome);
  std::string_view text = http_request.body;
  if (const std::string_view feature = http_request.header("X-Feature"); !feature.empty()) {
    if (auto err = budget::check_feature(feature)) co_return answer_error(call, *err, outcome);
    outcome.row.feature = std::string(feature);
  }

  // Read and validate.
  auto doc = parse_json_object(text);
  if (auto* err = std::get_if<errors::ApiError>(&doc)) co_return answer_error(call, *err, outcome);
  if (auto* key = std::get_if<std::string>(&idempotency_key)) {
    if (!co_await take_idempotency_key(call, std::move(*key), std::get<nlohmann::json>(doc), outcome))
      co_return;
  }
  std::string expanded;  // the body after a named prompt was filled in (or a door's translation)
  if (outcome.door != nullptr) {
    // Another API's request: translated to the chat request the rest of the
    // chain serves. Named prompts are chat's alone.
    auto translated = co_await outcome.door->open(std::get<nlohmann::json>(std::move(doc)),
                                                  outcome.row.tenant_id, call.request_id());
    if (auto* err = std::get_if<errors::ApiError>(&translated)) co_return answer_error(call, *err, outcome);
    auto& t = std::get<DoorRequest>(translated);
    outcome.shaper = std::move(t.shaper);
    for (const auto& [name, value] : t.headers) call.set_header(name, value);
    expanded = t.chat.dump();
    text = expanded;
    doc = std::move(t.chat);
  } else if (prompts::names_prompt(std::get<nlohmann::json>(doc))) {
    if (deps_.prompts == nullptr) {
      co_return answer_error(
          call, errors::bad_request("invalid_parameter", "named prompts are not enabled", "prompt"), outcome);
    }
    // Expand the prompt: its version may come from storage, so off the loop.
    const std::int64_t tenant = outcome.row.tenant_id;
    auto expansion = co_await net::offload(deps_.blocking, [&] {
      return prompts::expand_prompt(std::get<nlohmann::json>(std::move(doc)), tenant, *deps_.prompts);
    });
    if (auto* err = std::get_if<errors::ApiError>(&expansion)) co_return answer_error(call, *err, outcome);
    auto& e = std::get<prompts::Expansion>(expansion);
    outcome.row.prompt_name = e.name;
    outcome.row.prompt_version = e.version;
    expanded = std::move(e.body);
    text = expanded;
    doc = std::move(e.doc);
  }
  auto parsed = check_chat_request(std::get<nlohmann::json>(std::move(doc)));
  if (auto* err = std::get_if<errors::ApiError>(&parsed)) co_return answer_error(call, *err, outcome);
  ChatRequest& req = std::get<ChatRequest>(parsed);
  outcome.streamed = req.stream;
  if (req.choices > deps_.max_choices) {
    co_return answer_error(
        call,
        errors::bad_request("invalid_parameter",
                            "'n' is " + std::to_string(req.choices) + "; this gateway serves at most " +
                                std::to_string(deps_.max_choices) +
                                " completions per request (budget.max_choices)",
                            "n"),
        outcome);
  }

  if (req.model == "auto") {
    co_return answer_error(
        call,
        errors::ApiError{422, "model_not_available",
                         "model 'auto' (routing by policy) is not available yet; name a catalog alias "
                         "(GET /v1/models)",
                         "model"},
        outcome);
  }
  const auto* candidates = deps_.catalog.resolve(req.model);
  if (candidates == nullptr || candidates->empty()) {
    co_return answer_error(call,
                           errors::not_found("model_not_found",
                                             "model '" + errors::input_excerpt(req.model) +
                                                 "' is not in the catalog; GET /v1/models lists the "
                                                 "aliases you can use",
                                             "model"),
                           outcome);
  }
  // The request rate first: a request refused at any later stage (PII, money)
  // still counts, and a refused one does no further work.
  if (deps_.spend != nullptr && !co_await hold_requests(call, outcome)) co_return;
  if (deps_.pii != nullptr) {
    if (!co_await apply_pii_policy(call, req, text, expanded, outcome)) co_return;
    if (!expanded.empty()) text = expanded;
  }

  if (outcome.shaper) outcome.shaper->sent(text, outcome.row.pii_action == "flagged");

  // Route: the models that may serve it, in order.
  Routing routing = plan_routes(*candidates, req, text);
  if (routing.plans.empty()) {
    const auto& first = candidates->front()->entry;
    outcome.row.alias = first.alias;
    outcome.row.provider = first.provider;
    outcome.row.upstream_model = first.model;
    co_return answer_error(call, *routing.refusal, outcome);
  }
  if (deps_.spend != nullptr && !co_await hold_spend(call, req, routing, text, outcome)) co_return;

  // The parsed document is not read past routing: free it before the upstream
  // exchange, so a large body is not held twice while the call runs.
  req.doc = nlohmann::json();

  const auto budget_end = std::chrono::steady_clock::now() + policy_.budget();
  const metrics::OpenStream open_stream(deps_.metrics, req.stream);
  errors::ApiError last_error;
  for (const RoutePlan& plan : routing.plans) {
    AttemptContext attempt{call, req, plan, policy_, deps_.redactor, budget_end, outcome};
    if (co_await try_model(attempt, text, last_error)) co_return;
    logging::for_request(call.request_id())
        .warn("model '{}' failed with {} {}; {}", plan.route->entry.alias, last_error.status, last_error.code,
              &plan == &routing.plans.back() ? "no model left to try" : "trying the next model of the route");
  }
  answer_error(call, last_error, outcome);
}

}  // namespace modelgw::chat
