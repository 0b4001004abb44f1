#include "chat/spend_stage.h"

#include "chat/body_members.h"
#include "chat/chat_endpoint.h"
#include "logging/request_log.h"
#include "util/json_write.h"

#include <modelgw/tokenizer.h>

#include <algorithm>
#include <map>
#include <optional>

namespace modelgw::chat {
namespace {

// The x-ratelimit-* standing, for the response's head.
void set_rate_headers(http::ServerCall& call, const budget::Admission& admission) {
  if (!admission.rate_limits.empty()) call.set_rate_limits(admission.rate_limits);
}

}  // namespace

budget::SpendRequest spend_request(const Routing& routing, const ChatRequest& request,
                                   std::int64_t default_output_cap, PromptCount how) {
  budget::SpendRequest out;
  out.client_max_tokens = request.max_tokens;
  out.choices = request.choices;
  // The bound is one walk over the messages, for every model: no tokenizer
  // can count past it. A plan the route planner counted exactly (near the
  // window) keeps its count.
  std::optional<std::int64_t> bound;
  if (how == PromptCount::bound) bound = static_cast<std::int64_t>(tokenizer::bound_chat_prompt(request.doc));
  // One count per tokenizer: a tier's models often share one. A model whose
  // tokenizer is not public (encoding nullptr) is held for the upper bound:
  // its vendor may count well past the estimate (Arabic, CJK, emoji).
  std::map<const tokenizer::Encoding*, std::int64_t> counted;
  for (const RoutePlan& plan : routing.plans) {
    const catalog::ModelRoute& route = *plan.route;
    std::int64_t prompt = route.encoding != nullptr ? plan.prompt_tokens : 0;
    if (prompt == 0 && bound) prompt = *bound;
    if (prompt == 0) {
      auto [it, fresh] = counted.try_emplace(route.encoding, 0);
      if (fresh) {
        it->second = static_cast<std::int64_t>(route.encoding != nullptr
                                                   ? tokenizer::count_chat_prompt(route.encoding, request.doc)
                                                   : tokenizer::bound_chat_prompt(request.doc));
      }
      prompt = it->second;
    }
    out.prompt_tokens = std::max(out.prompt_tokens, prompt);
    const pricing::Prices& p = route.prices;
    // Any prompt token may be written into the vendor's cache: held at
    // whichever of the two prices is dearer.
    out.prices.input = std::max({out.prices.input, p.input, p.cache_write});
    out.prices.output = std::max(out.prices.output, p.output);
    out.prices.cached_input = std::max(out.prices.cached_input, p.cached_input);
  }
  for (const RoutePlan& plan : routing.plans) {
    const auto& entry = plan.route->entry;
    // The catalog's default output, else what the window leaves, else a
    // modest default: a hold is never for "unbounded".
    std::int64_t output = entry.max_output_tokens;
    if (output == 0 && entry.context_window > 0) {
      output = entry.context_window - out.prompt_tokens;
      // What the window leaves after the bound is less than after the
      // real prompt: the model would be told a smaller limit than the
      // exact count gives. That request is held on the exact count.
      if (bound && output < default_output_cap) return spend_request(routing, request, default_output_cap);
    }
    if (output <= 0) output = 4096;
    out.default_output_tokens = std::max(out.default_output_tokens, std::min(output, default_output_cap));
  }
  out.prompt_bounded = bound.has_value();
  return out;
}

void limit_output(Routing& routing, std::string_view body, std::int64_t output_tokens,
                  const nlohmann::json* doc) {
  const std::string value = std::to_string(output_tokens);
  for (RoutePlan& plan : routing.plans) {
    // The name the model takes: reasoning models only max_completion_tokens.
    const bool classic = plan.route->supports_parameter("max_tokens") ||
                         !plan.route->supports_parameter("max_completion_tokens");
    const char* name = classic ? "max_tokens" : "max_completion_tokens";
    const std::string_view source = plan.body.empty() ? body : std::string_view(plan.body);
    // A member the parsed body does not have is not in its text either
    // (the parse reads escaped keys too): put first without indexing.
    const bool absent = plan.body.empty() && doc != nullptr && doc->is_object() && !doc->contains(name);
    auto edited = absent ? with_new_member(source, name, value) : with_member(source, name, value);
    if (!edited) {
      auto doc = nlohmann::json::parse(source, nullptr, false);
      if (!doc.is_object()) continue;
      doc[name] = output_tokens;
      edited = util::json_text(doc);
    }
    plan.body = std::move(*edited);
    plan.default_max_tokens = output_tokens;
    plan.output_limit = output_tokens;
  }
}

void settle_spend(Outcome& outcome, const catalog::Catalog& catalog, budget::SpendControl* spend) {
  auto& row = outcome.row;
  if (!row.alias.empty()) {
    const auto* routes = catalog.resolve(row.alias);
    if (routes != nullptr && routes->size() == 1 && !routes->front()->entry.is_tier()) {
      const pricing::Prices& p = routes->front()->prices;
      row.price_input_micros = p.input;
      row.price_output_micros = p.output;
      row.price_cached_micros = p.cached_input;
      row.cost_micros = pricing::cost_micros(p, row.prompt_tokens, row.cached_prompt_tokens,
                                             row.completion_tokens, row.cache_write_prompt_tokens);
    }
  }
  if (spend == nullptr) return;
  std::size_t parts = 0;
  for (const auto* a : {&outcome.requests_admission, &outcome.admission})
    parts += *a ? (*a)->parts.size() : 0;
  row.charges.reserve(row.charges.size() + parts);
  // The request counts whatever became of it.
  if (outcome.requests_admission) spend->settle(*outcome.requests_admission, 0, 0, row.charges);
  if (!outcome.admission) return;
  const std::int64_t tokens = std::max(row.total_tokens, row.prompt_tokens + row.completion_tokens);
  spend->settle(*outcome.admission, row.cost_micros, tokens, row.charges);
}

net::Task<bool> ChatEndpoint::hold_requests(http::ServerCall& call, Outcome& outcome) {
  const auth::Principal& principal = *outcome.principal;
  auto spend = deps_.spend_of_cached(principal);
  if (!spend) spend = co_await net::offload(deps_.blocking, [&] { return deps_.spend_of(principal); });
  outcome.spend = spend;
  if (!spend->limits_anything()) co_return true;
  const budget::SpendRequest wanted = budget::SpendControl::requests_only(principal, *spend);
  // In memory nearly always; a coroutine only when a lease must grow first.
  std::optional<budget::Admission> held = deps_.spend->admit_now(wanted);
  if (!held) held = co_await deps_.spend->admit(wanted);
  budget::Admission& admission = *held;
  if (admission.refusal) co_return refuse_spend(call, admission, outcome);
  set_rate_headers(call, admission);
  if (!admission.hold.empty()) outcome.requests_admission = std::move(admission);
  co_return true;
}

bool ChatEndpoint::refuse_spend(http::ServerCall& call, budget::Admission& admission,
                                Outcome& outcome) const {
  const auth::Principal& principal = *outcome.principal;
  set_rate_headers(call, admission);
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
  // Held first for the prompt's upper bound, which costs a walk over the
  // messages where the exact count costs a BPE pass over every byte: it can
  // only hold more. Where the bound decides something against the request
  // (a refusal, a clamped output limit), the exact count decides instead.
  auto wanted_for = [&](PromptCount how) {
    budget::SpendRequest wanted = spend_request(routing, request, deps_.default_output_tokens, how);
    wanted.principal = &principal;
    wanted.spend = spend.get();
    wanted.feature = outcome.row.feature;
    wanted.parts = budget::SpendRequest::Parts::all_but_requests;
    return wanted;
  };
  const budget::SpendRequest wanted = wanted_for(PromptCount::bound);
  // In memory nearly always; a coroutine only when a lease must grow first.
  std::optional<budget::Admission> held = deps_.spend->admit_now(wanted);
  if (!held) held = co_await deps_.spend->admit(wanted);
  budget::Admission& admission = *held;
  if (wanted.prompt_bounded && (admission.refusal || admission.clamped)) {
    if (!admission.refusal) deps_.spend->release(admission);
    admission = co_await deps_.spend->admit(wanted_for(PromptCount::exact));
  }
  if (admission.refusal) co_return refuse_spend(call, admission, outcome);
  set_rate_headers(call, admission);
  // The vendor is told the output limit the hold covers, for money and for
  // tokens per minute alike: it cannot then spend past either.
  if (admission.holds_output() && (!request.max_tokens || admission.clamped)) {
    limit_output(routing, body, admission.output_tokens, &request.doc);
    if (admission.clamped) call.set_header("X-Max-Tokens-Clamped", std::to_string(admission.output_tokens));
  }
  outcome.admission = std::move(admission);
  co_return true;
}

net::Task<bool> ChatEndpoint::hold_input(http::ServerCall& call,
                                         const std::vector<const catalog::ModelRoute*>& routes,
                                         std::int64_t prompt_tokens, Outcome& outcome) {
  auto spend = outcome.spend;  // looked up by hold_requests
  if (!spend || !spend->limits_anything()) co_return true;
  budget::SpendRequest wanted;
  wanted.principal = outcome.principal;
  wanted.spend = spend.get();
  wanted.feature = outcome.row.feature;
  wanted.parts = budget::SpendRequest::Parts::all_but_requests;
  wanted.prompt_tokens = prompt_tokens;
  wanted.client_max_tokens = 0;  // nothing is generated
  for (const catalog::ModelRoute* route : routes) {
    wanted.prices.input = std::max(wanted.prices.input, route->prices.input);
    wanted.prices.cached_input = std::max(wanted.prices.cached_input, route->prices.cached_input);
  }
  // In memory nearly always; a coroutine only when a lease must grow first.
  std::optional<budget::Admission> held = deps_.spend->admit_now(wanted);
  if (!held) held = co_await deps_.spend->admit(wanted);
  budget::Admission& admission = *held;
  if (admission.refusal) co_return refuse_spend(call, admission, outcome);
  set_rate_headers(call, admission);
  outcome.admission = std::move(admission);
  co_return true;
}

}  // namespace modelgw::chat
