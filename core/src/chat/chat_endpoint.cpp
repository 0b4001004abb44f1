#include "chat/chat_endpoint.h"

#include "chat/body_members.h"

#include "audit/pii_events.h"
#include "budget/feature_name.h"
#include "chat/record.h"
#include "chat/route_plan.h"
#include "chat/spend_step.h"
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
  settle_spend(outcome, deps_.catalog, deps_.spend);
  // Only a complete, successful answer is kept for retries (README): any
  // other outcome frees the key, so a retry makes the call (spec 4.1).
  const bool keep =
      call.status_sent() == 200 && outcome.row.error_code.empty() && (!call.streaming() || call.finished());
  if (outcome.recorded) record_outcome(outcome, call, deps_.usage);
  if (outcome.idempotent) {
    // The answer is complete: the flight stops watching it (it may be freed
    // in finish()). The client gets it first; keeping it is the store's write.
    call.set_tap(nullptr);
    (void)co_await call.flush();
    co_await deps_.idempotency->finish(std::move(outcome.idempotent), keep);
  }
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

net::Task<bool> ChatEndpoint::take_idempotency_key(http::ServerCall& call, std::string key,
                                                   const nlohmann::json& body, Outcome& outcome) {
  if (deps_.idempotency == nullptr) {
    answer_error(
        call,
        errors::ApiError{422, "unsupported_parameter",
                         "this gateway's storage does not keep idempotency keys; send the request without "
                         "Idempotency-Key",
                         "Idempotency-Key"},
        outcome);
    co_return false;
  }
  // A key is the tenant's across doors: the same body sent to another API
  // is another request.
  const std::string digest = idempotency::request_digest(
      body, outcome.door == nullptr ? outcome.row.feature
                                    : std::string(outcome.door->operation()) + "\n" + outcome.row.feature);
  auto step = co_await deps_.idempotency->begin(call, outcome.row.tenant_id, std::move(key), digest);
  if (step.flight) {
    outcome.idempotent = std::move(step.flight);
    co_return true;
  }
  if (step.answered) {
    // The first request's answer: it was recorded and charged once, there.
    outcome.recorded = false;
    logging::for_request(call.request_id())
        .info("tenant={} replayed the answer of a request with the same Idempotency-Key",
              outcome.principal->tenant_name);
  } else if (step.refusal) {
    answer_error(call, std::move(*step.refusal), outcome);
  } else {
    outcome.row.error_code = "client_disconnected";
  }
  co_return false;
}

net::Task<bool> ChatEndpoint::hold_requests(http::ServerCall& call, Outcome& outcome) {
  const auth::Principal& principal = *outcome.principal;
  auto spend = deps_.spend_of_cached(principal);
  if (!spend) spend = co_await net::offload(deps_.blocking, [&] { return deps_.spend_of(principal); });
  outcome.spend = spend;
  if (!spend->limits_anything()) co_return true;
  budget::Admission admission = co_await deps_.spend->admit_requests(principal, *spend);
  if (admission.refusal) co_return refuse_spend(call, admission, outcome);
  for (const auto& [name, value] : admission.headers) call.set_header(name, value);
  if (!admission.hold.empty()) outcome.requests_admission = std::move(admission);
  co_return true;
}

bool ChatEndpoint::refuse_spend(http::ServerCall& call, budget::Admission& admission,
                                Outcome& outcome) const {
  const auth::Principal& principal = *outcome.principal;
  for (const auto& [name, value] : admission.headers) call.set_header(name, value);
  outcome.row.reason = admission.reason;
  if (deps_.audit != nullptr && !admission.exhausted_account.empty()) {
    deps_.audit->budget_exhausted(outcome.row.tenant_id, admission.exhausted_account,
                                  admission.exhausted_window_start_unix_ms, call.request_id(),
                                  principal.describe());
  }
  if (!admission.reason.empty()) {
    logging::for_request(call.request_id()).info("refused: {}", admission.reason);
  }
  answer_error(call, *admission.refusal, outcome);
  return false;
}

net::Task<bool> ChatEndpoint::hold_spend(http::ServerCall& call, const ChatRequest& request, Routing& routing,
                                         std::string_view body, Outcome& outcome) {
  const auth::Principal& principal = *outcome.principal;
  auto spend = outcome.spend;  // looked up by hold_requests
  if (!spend || !spend->limits_anything()) co_return true;
  budget::SpendRequest wanted = spend_request(routing, request, deps_.default_output_tokens);
  wanted.principal = &principal;
  wanted.spend = spend.get();
  wanted.feature = outcome.row.feature;
  wanted.parts = budget::SpendRequest::Parts::all_but_requests;
  budget::Admission admission = co_await deps_.spend->admit(wanted);
  if (admission.refusal) co_return refuse_spend(call, admission, outcome);
  for (const auto& [name, value] : admission.headers) call.set_header(name, value);
  // The vendor is told the output limit the hold covers, for money and for
  // tokens per minute alike: it cannot then spend past either.
  if (admission.holds_output() && (!request.max_tokens || admission.clamped)) {
    limit_output(routing, body, admission.output_tokens);
    if (admission.clamped) call.set_header("X-Max-Tokens-Clamped", std::to_string(admission.output_tokens));
  }
  outcome.admission = std::move(admission);
  co_return true;
}

net::Task<bool> ChatEndpoint::apply_pii_policy(http::ServerCall& call, ChatRequest& request,
                                               std::string_view source, std::string& body, Outcome& outcome) {
  auto policy = deps_.pii_policy_cached(*outcome.principal);
  if (!policy) {
    policy = co_await net::offload(deps_.blocking, [&] { return deps_.pii_policy(*outcome.principal); });
  }
  pii::Verdict verdict;
  bool failed = false;
  try {
    verdict = deps_.pii->inspect(request.doc, *policy);
  } catch (const std::exception& e) {
    // The text must not go upstream unchecked: fail closed. The message names
    // the mode and the path, never the text.
    logging::for_request(call.request_id()).error("{}", e.what());
    failed = true;
  }
  if (failed) {
    answer_error(call, errors::internal_error("the PII policy could not be applied; report the request_id"),
                 outcome);
    co_return false;
  }
  if (!verdict.any()) co_return true;
  outcome.row.pii_action = verdict.action;
  outcome.row.pii_findings = verdict.findings_json();
  if (verdict.action != "masked") {
    const std::string actor = outcome.principal->describe();
    audit::record_pii_event(
        deps_.audit, {verdict.rejection ? "pii.blocked" : "pii.flagged", call.request_id(),
                      outcome.row.tenant_id, outcome.row.key_id, actor,
                      verdict.rejection ? std::string_view(verdict.rejection->param) : std::string_view(),
                      outcome.row.pii_findings});
  }
  if (verdict.rejection) {
    answer_error(call, std::move(*verdict.rejection), outcome);
    co_return false;
  }
  // Masked text is written over the original where it stands in the body;
  // only a body that cannot be edited that way (a key written with escapes
  // or given twice on the way) is serialised again from the parsed request.
  if (verdict.changed) {
    auto edited = replace_strings(body.empty() ? source : std::string_view(body), verdict.replacements);
    body = edited ? std::move(*edited) : request.doc.dump();
  }
  co_return true;
}

}  // namespace modelgw::chat
