// The embeddings chain, in order: size and recordability, headers
// (Idempotency-Key, X-Feature), the one parse, the idempotency claim, the
// request's checks and its model (an embedding model), the request rate,
// the PII policy on every input string (a mask replaces the text that is
// embedded), the spend hold (the inputs' tokens at the dearest input price
// of the route), then each model of the route in turn, each batch of at most
// the model's max_inputs inputs in turn; the answers joined in order. The
// ends (settle, record, the key's answer) are ChatEndpoint::handle's.
#include "chat/chat_endpoint.h"
#include "chat/record.h"
#include "chat/upstream_attempt.h"
#include "embeddings/embeddings_answer.h"
#include "embeddings/embeddings_request.h"
#include "http/request_id.h"
#include "logging/request_log.h"

#include <modelgw/plugin.h>
#include <modelgw/tokenizer.h>

namespace modelgw::chat {
namespace {

// The inputs' tokens: exact for a model with a public tokenizer; else, with
// `bound`, at most one per byte (what money holds for), without it the
// documented estimate (what a record says when the vendor reports none).
std::int64_t input_tokens(const catalog::ModelRoute& route, const nlohmann::json& input, std::size_t from,
                          std::size_t count, bool bound = true) {
  std::int64_t total = 0;
  for (std::size_t i = from; i < from + count && i < input.size(); ++i) {
    const auto& item = input[i];
    if (item.is_array()) {
      total += static_cast<std::int64_t>(item.size());
    } else {
      const auto& text = item.get_ref<const std::string&>();
      total += static_cast<std::int64_t>(route.encoding != nullptr ? route.encoding->count(text)
                                         : bound                   ? text.size()
                                                                   : tokenizer::estimate_tokens(text));
    }
  }
  return total;
}

}  // namespace

net::Task<void> ChatEndpoint::serve_embeddings(http::ServerCall& call, Outcome& outcome) {
  Flow flow;
  if (!admit(call, outcome)) co_return;
  if (!read_headers(call, flow, outcome)) co_return;
  if (!read_body(call, flow, outcome)) co_return;
  if (flow.idempotency_key &&
      !co_await take_idempotency_key(call, std::move(*flow.idempotency_key), flow.doc, outcome))
    co_return;
  auto checked = embeddings::check_embeddings_request(std::move(flow.doc));
  if (auto* err = std::get_if<errors::ApiError>(&checked)) {
    answer_error(call, std::move(*err), outcome);
    co_return;
  }
  auto& request = std::get<embeddings::EmbeddingsRequest>(checked);
  const auto* candidates = deps_.catalog.resolve(request.model);
  if (candidates == nullptr || candidates->empty()) {
    answer_error(
        call,
        errors::not_found("model_not_found",
                          "model '" + errors::input_excerpt(request.model) +
                              "' is not in the catalog; GET /v1/models lists the aliases you can use",
                          "model"),
        outcome);
    co_return;
  }
  const catalog::ModelRoute& first = *candidates->front();
  outcome.row.alias = first.entry.alias;
  outcome.row.provider = first.entry.provider;
  outcome.row.upstream_model = first.entry.model;
  if (!first.entry.is_embedding()) {
    answer_error(call,
                 errors::bad_request("invalid_model",
                                     "model '" + errors::input_excerpt(request.model) +
                                         "' is a chat model; POST /v1/embeddings serves embedding models "
                                         "(catalog entries of kind: embedding)",
                                     "model"),
                 outcome);
    co_return;
  }
  if (request.dimensions && *request.dimensions > first.entry.dimensions) {
    answer_error(call,
                 errors::bad_request("invalid_parameter",
                                     "'dimensions' is " + std::to_string(*request.dimensions) + "; model '" +
                                         first.entry.alias + "' makes vectors of at most " +
                                         std::to_string(first.entry.dimensions),
                                     "dimensions"),
                 outcome);
    co_return;
  }
  if (deps_.spend != nullptr && !co_await hold_requests(call, outcome)) co_return;
  if (deps_.pii != nullptr && !request.tokens) {
    // Only the inputs (the model's name and the format are not text), as
    // {"input": [...]} so that a finding is named input[i].
    nlohmann::json scanned = nlohmann::json::object();
    scanned["input"] = std::move(request.input);
    const bool passed = co_await apply_pii_to_document(call, scanned, outcome);
    request.input = std::move(scanned["input"]);
    if (!passed) co_return;
  }
  std::int64_t held_tokens = 0;
  for (const catalog::ModelRoute* route : *candidates) {
    held_tokens = std::max(held_tokens, input_tokens(*route, request.input, 0, request.input.size()));
  }
  if (deps_.spend != nullptr && !co_await hold_input(call, *candidates, held_tokens, outcome)) co_return;

  const ChatRequest no_chat{nlohmann::json(), request.model, false, std::nullopt, 1};
  const auto budget_end = std::chrono::steady_clock::now() + policy_.budget();
  errors::ApiError last_error;
  for (const catalog::ModelRoute* route : *candidates) {
    const std::size_t size = static_cast<std::size_t>(std::max<std::int64_t>(1, route->entry.max_inputs));
    embeddings::EmbeddingsAnswer answer(call.request_id(), route->entry.alias, request.input.size());
    std::int64_t prompt_tokens = 0;
    bool failed_over = false;
    for (std::size_t from = 0; from < request.input.size() && !failed_over; from += size) {
      const std::size_t count = std::min(size, request.input.size() - from);
      RoutePlan plan;
      plan.route = route;
      plan.prompt_tokens = input_tokens(*route, request.input, from, count, false);
      outcome.row.prompt_tokens = 0;
      const std::string body = embeddings::batch_body(request, from, count);
      std::string collected;
      AttemptContext attempt{call, no_chat, plan, policy_, deps_.redactor, budget_end, outcome};
      attempt.native_operation = MGW_OPERATION_EMBEDDINGS;
      attempt.native_body = body;
      attempt.collected = &collected;
      if (!co_await try_model(attempt, body, last_error)) {
        logging::for_request(call.request_id())
            .warn(
                "model '{}' failed with {} {}; {}", route->entry.alias, last_error.status, last_error.code,
                route == candidates->back() ? "no model left to try" : "trying the next model of the route");
        failed_over = true;
        break;
      }
      if (call.answered() || collected.empty()) co_return;  // answered (an error), or the client left
      // The vendor's count, else the gateway's (Gemini reports none).
      prompt_tokens += outcome.row.prompt_tokens > 0 ? outcome.row.prompt_tokens : plan.prompt_tokens;
      // One batch (the common case): the plugin's list is the answer
      // (plugin.h: one item per input, in order, under the alias; the
      // conformance kit checks it), relayed with the request_id alone, no
      // second scan of 1,536 numbers a vector. A body that is not an object
      // goes on to the join, which refuses it.
      if (std::string whole; count == request.input.size() &&
                             http::append_with_request_id(whole, collected, call.request_id())) {
        outcome.row.prompt_tokens = prompt_tokens;
        outcome.row.completion_tokens = 0;
        outcome.row.total_tokens = prompt_tokens;
        call.send_json(200, whole);
        co_return;
      }
      if (!answer.add(collected, from, count)) {
        answer_error(call,
                     errors::ApiError{502,
                                      "provider_failed",
                                      "provider '" + route->entry.provider +
                                          "' answered an embeddings call with a body that is not one item "
                                          "per input",
                                      {}},
                     outcome);
        co_return;
      }
    }
    if (failed_over) continue;
    outcome.row.prompt_tokens = prompt_tokens;
    outcome.row.completion_tokens = 0;
    outcome.row.total_tokens = prompt_tokens;
    call.send_json(200, answer.finish(prompt_tokens));
    co_return;
  }
  answer_error(call, last_error, outcome);
}

}  // namespace modelgw::chat
