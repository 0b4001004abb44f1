// The read stage: what the chain checks before any other stage runs (the
// body's size, that usage can be recorded), the headers that are the same
// mistake whatever the body, the one JSON parse, the door's translation or a
// named prompt's expansion, and the chat request's own checks.
#include "chat/chat_endpoint.h"

#include "budget/feature_name.h"
#include "idempotency/idempotency_key.h"
#include "prompts/prompt_invocation.h"
#include "util/json_write.h"

namespace modelgw::chat {

bool ChatEndpoint::admit(http::ServerCall& call, Outcome& outcome) const {
  if (call.request().body_too_large) {
    answer_error(call,
                 errors::ApiError{413,
                                  "request_too_large",
                                  "the request body is larger than this gateway accepts (" +
                                      std::to_string(deps_.max_body_bytes) + " bytes)",
                                  {}},
                 outcome);
    return false;
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
    return false;
  }
  return true;
}

bool ChatEndpoint::read_headers(http::ServerCall& call, Flow& flow, Outcome& outcome) const {
  // The Idempotency-Key is checked before the body: a malformed one is the
  // same mistake whatever the body.
  auto key = idempotency::read_key(call.request());
  if (auto* err = std::get_if<errors::ApiError>(&key)) {
    answer_error(call, std::move(*err), outcome);
    return false;
  }
  if (auto* text = std::get_if<std::string>(&key)) flow.idempotency_key = std::move(*text);
  if (const std::string_view feature = call.request().header("X-Feature"); !feature.empty()) {
    if (auto err = budget::check_feature(feature)) {
      answer_error(call, std::move(*err), outcome);
      return false;
    }
    outcome.row.feature = std::string(feature);
  }
  return true;
}

bool ChatEndpoint::read_body(http::ServerCall& call, Flow& flow, Outcome& outcome) const {
  flow.text = call.request().body;
  bool repeated_key = false;
  auto doc = util::parse_json_object(
      flow.text,
      outcome.door != nullptr ? outcome.door->body_members() : std::string_view("model and messages"),
      &repeated_key);
  if (auto* err = std::get_if<errors::ApiError>(&doc)) {
    answer_error(call, std::move(*err), outcome);
    return false;
  }
  flow.doc = std::get<nlohmann::json>(std::move(doc));
  // A name given twice in one object: the stages read its last value, but a
  // vendor's parser may take the first, which no stage checked (the PII scan,
  // the output limit). The body goes on as the stages read it, not as sent.
  if (repeated_key) {
    flow.edited = util::json_text(flow.doc, flow.text.size());
    flow.text = flow.edited;
  }
  return true;
}

namespace {

// True when a model the body names is served, by at least one provider of its
// route, in the door's API natively: the door then writes its own request too.
bool served_natively(const catalog::Catalog& catalog, const nlohmann::json& body,
                     std::string_view operation) {
  const auto model = body.find("model");
  if (model == body.end() || !model->is_string()) return false;
  const auto* routes = catalog.resolve(model->get_ref<const std::string&>());
  if (routes == nullptr) return false;
  for (const catalog::ModelRoute* route : *routes) {
    if (route->provider->serves_natively(operation)) return true;
  }
  return false;
}

}  // namespace

net::Task<bool> ChatEndpoint::open_door(http::ServerCall& call, Flow& flow, Outcome& outcome) {
  if (outcome.door != nullptr) {
    // Another API's request: translated to the chat request the rest of the
    // chain serves. Named prompts are chat's alone.
    const std::string_view operation = outcome.door->operation();
    const bool native = served_natively(deps_.catalog, flow.doc, operation);
    auto translated = co_await outcome.door->open(std::move(flow.doc), flow.text, outcome.row.tenant_id,
                                                  call.request_id(), native);
    if (auto* err = std::get_if<errors::ApiError>(&translated)) {
      answer_error(call, std::move(*err), outcome);
      co_return false;
    }
    auto& t = std::get<DoorRequest>(translated);
    outcome.shaper = std::move(t.shaper);
    for (const auto& [name, value] : t.headers) call.set_header(name, value);
    flow.edited = util::json_text(t.chat, flow.text.size());
    flow.text = flow.edited;
    flow.doc = std::move(t.chat);
    if (t.native) {
      flow.native_operation = operation;
      flow.native_doc = std::move(*t.native);
      flow.native_text = std::move(t.native_text);
    }
    co_return true;
  }
  if (!prompts::names_prompt(flow.doc)) co_return true;
  if (deps_.prompts == nullptr) {
    answer_error(call, errors::bad_request("invalid_parameter", "named prompts are not enabled", "prompt"),
                 outcome);
    co_return false;
  }
  // Expand the prompt: its version may come from storage, so off the loop.
  const std::int64_t tenant = outcome.row.tenant_id;
  auto expansion = co_await net::offload(
      deps_.blocking, [&] { return prompts::expand_prompt(std::move(flow.doc), tenant, *deps_.prompts); });
  if (auto* err = std::get_if<errors::ApiError>(&expansion)) {
    answer_error(call, std::move(*err), outcome);
    co_return false;
  }
  auto& e = std::get<prompts::Expansion>(expansion);
  outcome.row.prompt_name = e.name;
  outcome.row.prompt_version = e.version;
  flow.edited = std::move(e.body);
  flow.text = flow.edited;
  flow.doc = std::move(e.doc);
  co_return true;
}

bool ChatEndpoint::validate(http::ServerCall& call, Flow& flow, Outcome& outcome) const {
  auto parsed = check_chat_request(std::move(flow.doc));
  if (auto* err = std::get_if<errors::ApiError>(&parsed)) {
    answer_error(call, std::move(*err), outcome);
    return false;
  }
  ChatRequest& req = flow.request.emplace(std::get<ChatRequest>(std::move(parsed)));
  outcome.streamed = req.stream;
  if (req.choices > deps_.max_choices) {
    answer_error(call,
                 errors::bad_request(
                     "invalid_parameter",
                     "'n' is " + std::to_string(req.choices) + "; this gateway serves at most " +
                         std::to_string(deps_.max_choices) + " completions per request (budget.max_choices)",
                     "n"),
                 outcome);
    return false;
  }
  if (req.model == "auto") {
    answer_error(
        call,
        errors::ApiError{422, "model_not_available",
                         "model 'auto' (routing by policy) is not available yet; name a catalog alias "
                         "(GET /v1/models)",
                         "model"},
        outcome);
    return false;
  }
  flow.candidates = deps_.catalog.resolve(req.model);
  if (flow.candidates == nullptr || flow.candidates->empty()) {
    answer_error(
        call,
        errors::not_found("model_not_found",
                          "model '" + errors::input_excerpt(req.model) +
                              "' is not in the catalog; GET /v1/models lists the aliases you can use",
                          "model"),
        outcome);
    return false;
  }
  if (flow.candidates->front()->entry.is_embedding()) {
    answer_error(
        call,
        errors::bad_request("invalid_model",
                            "model '" + errors::input_excerpt(req.model) +
                                "' is an embedding model: POST /v1/embeddings serves it, not this API",
                            "model"),
        outcome);
    return false;
  }
  return true;
}

}  // namespace modelgw::chat
