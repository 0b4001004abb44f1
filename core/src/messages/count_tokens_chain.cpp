// The count_tokens chain (POST /v1/messages/count_tokens), in order: size
// and recordability, headers, the one parse, the door's checks (the body of
// a Messages request, max_tokens optional), the model (a chat model), the
// request rate (a count is a request: it is rate limited, never billed), the
// PII policy on what is sent to count, then the count: the vendor's own for a
// provider that declares count_tokens (plugin.h), the exact BPE for a model
// whose tokenizer is public, else the gateway's documented estimate. The
// usage record holds no tokens: nothing was spent.
#include "chat/chat_endpoint.h"
#include "chat/upstream_attempt.h"
#include "logging/request_log.h"
#include "util/json_write.h"

#include <modelgw/plugin.h>
#include <modelgw/tokenizer.h>

namespace modelgw::chat {
namespace {

// {"input_tokens":N} from a plugin's count_tokens answer; nullopt otherwise.
std::optional<std::int64_t> counted_tokens(std::string_view body) {
  const auto doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  const auto n = doc.find("input_tokens");
  if (n == doc.end() || !n->is_number_integer() || n->get<std::int64_t>() < 0) return std::nullopt;
  return n->get<std::int64_t>();
}

}  // namespace

net::Task<void> ChatEndpoint::serve_count_tokens(http::ServerCall& call, Outcome& outcome) {
  Flow flow;
  if (!admit(call, outcome)) co_return;
  if (!read_headers(call, flow, outcome)) co_return;
  if (!read_body(call, flow, outcome)) co_return;
  auto opened = co_await outcome.door->open(std::move(flow.doc), flow.text, outcome.row.tenant_id,
                                            call.request_id(), true);
  if (auto* err = std::get_if<errors::ApiError>(&opened)) {
    answer_error(call, std::move(*err), outcome);
    co_return;
  }
  auto& door = std::get<DoorRequest>(opened);
  nlohmann::json& chat = door.chat;
  const std::string model = chat.value("model", std::string());
  const auto* candidates = deps_.catalog.resolve(model);
  if (candidates == nullptr || candidates->empty()) {
    answer_error(
        call,
        errors::not_found("model_not_found",
                          "model '" + errors::input_excerpt(model) +
                              "' is not in the catalog; GET /v1/models lists the aliases you can use",
                          "model"),
        outcome);
    co_return;
  }
  const catalog::ModelRoute& first = *candidates->front();
  outcome.row.alias = first.entry.alias;
  outcome.row.provider = first.entry.provider;
  outcome.row.upstream_model = first.entry.model;
  if (first.entry.is_embedding()) {
    answer_error(
        call,
        errors::bad_request("invalid_model",
                            "model '" + errors::input_excerpt(model) +
                                "' is an embedding model: POST /v1/embeddings serves it, not this API",
                            "model"),
        outcome);
    co_return;
  }
  if (deps_.spend != nullptr && !co_await hold_requests(call, outcome)) co_return;
  if (deps_.pii != nullptr) {
    // The native form repeats the chat form's texts: those found clean are
    // not scanned twice.
    pii::CleanTexts clean;
    if (!co_await apply_pii_to_document(call, chat, outcome, &clean)) co_return;
    if (door.native && !co_await apply_pii_to_document(call, *door.native, outcome, &clean)) co_return;
  }

  const ChatRequest no_chat{nlohmann::json(), model, false, std::nullopt, 1};
  const auto budget_end = std::chrono::steady_clock::now() + policy_.budget();
  errors::ApiError last_error;
  std::optional<std::int64_t> tokens;
  for (const catalog::ModelRoute* route : *candidates) {
    const plugins::Provider& provider = *route->provider;
    if (!provider.serves_natively(MGW_OPERATION_COUNT_TOKENS)) {
      // No vendor count: the exact BPE where the tokenizer is public, else
      // the estimate the gateway documents for that vendor.
      tokens = static_cast<std::int64_t>(tokenizer::count_chat_prompt(route->encoding, chat));
      outcome.row.alias = route->entry.alias;
      outcome.row.provider = route->entry.provider;
      outcome.row.upstream_model = route->entry.model;
      break;
    }
    // The Messages form to a provider that speaks it, else the chat form.
    const bool messages_form = door.native && provider.serves_natively(MGW_OPERATION_MESSAGES);
    const std::string body = util::json_text(messages_form ? *door.native : chat);
    RoutePlan plan;
    plan.route = route;
    std::string collected;
    AttemptContext attempt{call, no_chat, plan, policy_, deps_.redactor, budget_end, outcome};
    attempt.native_operation = MGW_OPERATION_COUNT_TOKENS;
    attempt.native_body = body;
    attempt.collected = &collected;
    const std::vector<mgw_header> forwarded = forwarded_client_headers(call, outcome.door);
    attempt.client_headers = forwarded;
    if (!co_await try_model(attempt, body, last_error)) {
      logging::for_request(call.request_id())
          .warn("model '{}' failed to count with {} {}; {}", route->entry.alias, last_error.status,
                last_error.code,
                route == candidates->back() ? "no model left to try" : "trying the next model of the route");
      continue;
    }
    if (call.answered() || collected.empty()) co_return;
    tokens = counted_tokens(collected);
    if (!tokens) {
      answer_error(call,
                   errors::ApiError{502,
                                    "provider_failed",
                                    "provider '" + route->entry.provider +
                                        "' answered a count with a body that is not {\"input_tokens\": N}",
                                    {}},
                   outcome);
      co_return;
    }
    break;
  }
  if (!tokens) {
    answer_error(call, last_error, outcome);
    co_return;
  }
  // Nothing was spent: the record says so.
  outcome.row.prompt_tokens = 0;
  outcome.row.completion_tokens = 0;
  outcome.row.total_tokens = 0;
  outcome.row.cached_prompt_tokens = 0;
  call.send_object(200, "{\"input_tokens\":" + std::to_string(*tokens) + "}");
}

}  // namespace modelgw::chat
