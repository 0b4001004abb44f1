#include "chat/chat_service.h"

#include "audit/pii_events.h"
#include "chat/chat_request.h"
#include "chat/plugin_sinks.h"
#include "chat/stream_relay.h"
#include "http/body_reader.h"
#include "prompts/prompt_invocation.h"

#include <modelgw/sdk.hpp>

#include <spdlog/spdlog.h>

#include <poll.h>

#include <chrono>
#include <thread>

namespace modelgw::chat {
namespace {

std::int64_t unix_ms_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

http::ApiError from_upstream_failure(const upstream::UpstreamFailure& f, const std::string& provider) {
  http::ApiError e;
  switch (f.kind()) {
    case upstream::FailureKind::timeout:
      e = http::ApiError{504, "provider_timeout", "the upstream provider '" + provider + "' timed out", {}};
      break;
    case upstream::FailureKind::connect:
      e = http::ApiError{
          502, "provider_failed", "the upstream provider '" + provider + "' could not be reached", {}};
      break;
    case upstream::FailureKind::busy:
      e = http::ApiError{503,
                         "provider_busy",
                         "every connection to the upstream provider '" + provider + "' is busy; retry later",
                         {}};
      break;
    case upstream::FailureKind::too_large:
      e = http::ApiError{502,
                         "provider_failed",
                         "the upstream provider '" + provider + "' sent a response larger than allowed",
                         {}};
      return e;  // the same call would be as large again
    case upstream::FailureKind::io:
    case upstream::FailureKind::cancelled:
    default:
      e = http::ApiError{
          502, "provider_failed", "the connection to the upstream provider '" + provider + "' failed", {}};
      break;
  }
  e.retryable = true;
  return e;
}

using Clock = std::chrono::steady_clock;

// Sleeps `wait`, unless the client hangs up first: then false.
bool wait_watching_client(const http::Call& call, std::chrono::milliseconds wait) {
  const int fd = call.client_fd();
  const auto until = Clock::now() + wait;
  // Bounded by `until`: every turn waits at most the time left.
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return true;
    if (fd < 0) {
      std::this_thread::sleep_for(left);
      return true;
    }
    pollfd p{fd, POLLRDHUP, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) return false;
  }
}

http::ApiError plugin_failure(const std::string& provider, const char* hook, mgw_status status) {
  spdlog::error("provider '{}': {} returned status {} without an error", provider, hook, status);
  return http::internal_error("the provider plugin for '" + provider + "' failed; report the request_id");
}

}  // namespace

// What one call amounted to, for its usage record.
struct ChatService::Outcome {
  const auth::Principal* principal = nullptr;
  plugins::UsageRow row;
  bool streamed = false;
  int attempts = 0;
};

void ChatService::answer_error(http::Call& call, http::ApiError error, Outcome& outcome) const {
  error.message = deps_.redactor.redact(std::move(error.message));
  outcome.row.error_code = error.code;
  if (error.status == 413) call.response.setKeepAlive(false);  // the unread body cannot be skipped safely
  call.send_error(error);
  if (error.status == 413) {
    (void)http::drain_body(call.request, 64u << 20, std::chrono::seconds(5));
  }
}

void ChatService::handle(http::Call& call, const auth::Principal& principal) {
  Outcome outcome;
  outcome.principal = &principal;
  outcome.row.request_id = call.request_id;
  outcome.row.tenant_id = principal.tenant_id;
  outcome.row.key_id = principal.key_id;
  outcome.row.created_unix_ms = unix_ms_now();
  try {
    serve(call, outcome);
  } catch (const std::exception& e) {
    spdlog::error("request {}: unexpected failure: {}", call.request_id, e.what());
    if (call.status_sent == 0) answer_error(call, http::internal_error(), outcome);
    if (outcome.row.error_code.empty()) outcome.row.error_code = "internal_error";
  }
  // 499 (as nginx logs it): the client left before any answer could be sent.
  const bool left = outcome.row.error_code == "client_disconnected";
  outcome.row.http_status = call.status_sent != 0 ? call.status_sent : (left ? 499 : 500);
  outcome.row.latency_us = call.elapsed_us();
  outcome.row.streamed = outcome.streamed;
  if (outcome.row.total_tokens == 0) {
    outcome.row.total_tokens = outcome.row.prompt_tokens + outcome.row.completion_tokens;
  }
  spdlog::info("{} tenant={} model={} status={} error={} tokens={} attempts={} latency_us={} pii={}",
               call.request_id, principal.tenant_name, outcome.row.alias.empty() ? "-" : outcome.row.alias,
               outcome.row.http_status, outcome.row.error_code.empty() ? "-" : outcome.row.error_code,
               outcome.row.total_tokens, outcome.attempts, outcome.row.latency_us,
               outcome.row.pii_action.empty() ? "-" : outcome.row.pii_action);
  deps_.usage.enqueue(std::move(outcome.row));
}

void ChatService::serve(http::Call& call, Outcome& outcome) {
  auto body = http::read_body(call.request, deps_.max_body_bytes);
  call.body_settled = true;  // read, or refused as too large (answer_error drains it after the 413)
  if (auto* err = std::get_if<http::ApiError>(&body)) return answer_error(call, *err, outcome);
  std::string_view text = std::get<std::string>(body);

  auto doc = parse_json_object(text);
  if (auto* err = std::get_if<http::ApiError>(&doc)) return answer_error(call, *err, outcome);
  std::string expanded;  // the body after a named prompt was filled in, when one was
  if (prompts::names_prompt(std::get<nlohmann::json>(doc))) {
    if (deps_.prompts == nullptr) {
      return answer_error(
          call, http::bad_request("invalid_parameter", "named prompts are not enabled", "prompt"), outcome);
    }
    auto expansion = prompts::expand_prompt(std::get<nlohmann::json>(std::move(doc)), outcome.row.tenant_id,
                                            *deps_.prompts);
    if (auto* err = std::get_if<http::ApiError>(&expansion)) return answer_error(call, *err, outcome);
    auto& e = std::get<prompts::Expansion>(expansion);
    outcome.row.prompt_name = e.name;
    outcome.row.prompt_version = e.version;
    expanded = std::move(e.body);
    text = expanded;
    doc = std::move(e.doc);
  }
  auto parsed = check_chat_request(std::get<nlohmann::json>(std::move(doc)));
  if (auto* err = std::get_if<http::ApiError>(&parsed)) return answer_error(call, *err, outcome);
  ChatRequest& req = std::get<ChatRequest>(parsed);
  outcome.streamed = req.stream;

  if (req.model == "auto") {
    return answer_error(
        call,
        http::ApiError{422, "model_not_available",
                       "model 'auto' (routing by policy) is not available yet; name a catalog alias "
                       "(GET /v1/models)",
                       "model"},
        outcome);
  }
  const auto* candidates = deps_.catalog.resolve(req.model);
  if (candidates == nullptr || candidates->empty()) {
    return answer_error(call,
                        http::not_found("model_not_found",
                                        "model '" + req.model +
                                            "' is not in the catalog; GET /v1/models lists the "
                                            "aliases you can use",
                                        "model"),
                        outcome);
  }
  if (deps_.pii != nullptr) {
    if (!apply_pii_policy(call, req, expanded, outcome)) return;
    if (!expanded.empty()) text = expanded;
  }
  const Routing routing = plan_routes(*candidates, req);
  if (routing.plans.empty()) {
    const auto& first = candidates->front()->entry;
    outcome.row.alias = first.alias;
    outcome.row.provider = first.provider;
    outcome.row.upstream_model = first.model;
    return answer_error(call, *routing.refusal, outcome);
  }

  const auto budget_end = Clock::now() + policy_.budget();
  http::ApiError last_error;
  for (const RoutePlan& plan : routing.plans) {
    if (try_route(call, req, text, plan, budget_end, outcome, last_error)) return;
    spdlog::warn(
        "request {}: model '{}' failed with {} {}; {}", call.request_id, plan.route->entry.alias,
        last_error.status, last_error.code,
        &plan == &routing.plans.back() ? "no model left to try" : "trying the next model of the route");
  }
  answer_error(call, last_error, outcome);
}

bool ChatService::apply_pii_policy(http::Call& call, ChatRequest& request, std::string& body,
                                   Outcome& outcome) {
  const auto policy = deps_.pii_policy(*outcome.principal);
  pii::Verdict verdict;
  try {
    verdict = deps_.pii->inspect(request.doc, *policy);
  } catch (const std::exception& e) {
    // The text must not go upstream unchecked: fail closed. The message names
    // the mode and the path, never the text.
    spdlog::error("request {}: {}", call.request_id, e.what());
    answer_error(call, http::internal_error("the PII policy could not be applied; report the request_id"),
                 outcome);
    return false;
  }
  if (!verdict.any()) return true;
  outcome.row.pii_action = verdict.action;
  outcome.row.pii_findings = verdict.findings_json();
  if (verdict.action != "masked") {
    audit::record_pii_event(
        {verdict.rejection ? "pii.blocked" : "pii.flagged", call.request_id, outcome.row.tenant_id,
         outcome.row.key_id,
         verdict.rejection ? std::string_view(verdict.rejection->param) : std::string_view(),
         outcome.row.pii_findings});
  }
  if (verdict.rejection) {
    answer_error(call, std::move(*verdict.rejection), outcome);
    return false;
  }
  // Masked text replaced the original in the parsed request: the body sent
  // upstream is serialised again from it (only then; other requests go as read).
  if (verdict.changed) body = request.doc.dump();
  return true;
}

bool ChatService::try_route(http::Call& call, const ChatRequest& request, std::string_view body,
                            const RoutePlan& plan, Clock::time_point budget_end, Outcome& outcome,
                            http::ApiError& last_error) {
  const catalog::ModelRoute& route = *plan.route;
  outcome.row.alias = route.entry.alias;
  outcome.row.provider = route.provider->name();
  outcome.row.upstream_model = route.entry.model;
  if (plan.dropped.empty()) {
    call.response.erase("X-Dropped-Params");
  } else {
    call.response.set("X-Dropped-Params", join_names(plan.dropped));
  }

  mgw_call_context ctx{};
  ctx.struct_size = sizeof ctx;
  ctx.request_id = mgw::str(call.request_id);
  ctx.alias = mgw::str(route.entry.alias);  // a tier answers with the model that served it
  ctx.upstream_model = mgw::str(route.entry.model);
  ctx.created_unix = outcome.row.created_unix_ms / 1000;
  ctx.stream = request.stream ? 1 : 0;
  ctx.default_max_tokens = plan.default_max_tokens;
  ctx.prompt_tokens = plan.prompt_tokens;

  const auto& hooks = route.provider->hooks();
  RequestCollector built;
  const std::string_view sent = plan.body.empty() ? body : std::string_view(plan.body);
  const mgw_status st =
      hooks.on_build_request(route.provider->handle(), &ctx, mgw::str(sent), &built.sink, &built.error_sink);
  if (built.error) {
    answer_error(call, *built.error, outcome);  // the request itself is wrong for this vendor
    return true;
  }
  if (st != MGW_OK || built.request.path.empty()) {
    answer_error(call, plugin_failure(route.provider->name(), "on_build_request", st), outcome);
    return true;
  }

  // Bounded: at most max_attempts tries, and no wait past the retry budget.
  for (int attempt = 0; attempt < policy_.max_attempts(); ++attempt) {
    ++outcome.attempts;
    Attempt a = attempt_once(call, request, plan, ctx, built.request, outcome);
    if (a.kind == Attempt::served) return true;
    if (a.kind == Attempt::cancelled) {
      outcome.row.error_code = "client_disconnected";
      return true;
    }
    if (!is_retryable(a.error)) {
      answer_error(call, a.error, outcome);
      return true;
    }
    last_error = std::move(a.error);
    if (attempt + 1 >= policy_.max_attempts()) break;
    const auto wait = policy_.wait_after(last_error, attempt, jitter_draw());
    if (Clock::now() + wait > budget_end) {
      spdlog::info("request {}: model '{}': a retry in {} ms would pass the retry budget", call.request_id,
                   route.entry.alias, wait.count());
      break;
    }
    spdlog::info("request {}: model '{}' answered {} {}; retry {} in {} ms", call.request_id,
                 route.entry.alias, last_error.status, last_error.code, attempt + 1, wait.count());
    if (!wait_watching_client(call, wait)) {
      outcome.row.error_code = "client_disconnected";
      return true;
    }
  }
  return false;
}

ChatService::Attempt ChatService::attempt_once(http::Call& call, const ChatRequest& request,
                                               const RoutePlan& plan, const mgw_call_context& ctx,
                                               const upstream::OutgoingRequest& outgoing, Outcome& outcome) {
  const auto& pcfg = plan.route->provider->config();
  upstream::Timeouts timeouts;
  timeouts.first_byte = std::chrono::milliseconds(pcfg.first_byte_timeout_ms);
  timeouts.total = std::chrono::milliseconds(pcfg.timeout_ms);
  upstream::Exchange exchange(*plan.route->pool, timeouts, call.client_fd());
  try {
    exchange.start(outgoing);
  } catch (const upstream::UpstreamFailure& f) {
    if (f.kind() == upstream::FailureKind::cancelled) return Attempt{Attempt::cancelled, {}};
    spdlog::warn("request {}: provider '{}': {}", call.request_id, pcfg.name, f.what());
    return Attempt{Attempt::failed, from_upstream_failure(f, pcfg.name)};
  }
  if (request.stream && exchange.status() >= 200 && exchange.status() < 300) {
    return relay_stream(call, plan, ctx, exchange, outcome);
  }
  return relay_whole(call, *plan.route, ctx, exchange, outcome);
}

ChatService::Attempt ChatService::relay_whole(http::Call& call, const catalog::ModelRoute& route,
                                              const mgw_call_context& ctx, upstream::Exchange& exchange,
                                              Outcome& outcome) {
  const auto& pcfg = route.provider->config();
  std::string body;
  try {
    body = exchange.read_all(pcfg.max_response_bytes);
  } catch (const upstream::UpstreamFailure& f) {
    if (f.kind() == upstream::FailureKind::cancelled) return Attempt{Attempt::cancelled, {}};
    spdlog::warn("request {}: provider '{}': {}", call.request_id, pcfg.name, f.what());
    return Attempt{Attempt::failed, from_upstream_failure(f, pcfg.name)};
  }
  // Views into the response head, which outlives the hook call: no copies.
  std::vector<mgw_header> headers;
  for (const auto& [name, value] : exchange.response())
    headers.push_back(mgw_header{mgw::str(name), mgw::str(value)});

  ResponseCollector got;
  const mgw_status st =
      route.provider->hooks().on_parse_response(route.provider->handle(), &ctx, exchange.status(),
                                                headers.data(), headers.size(), mgw::str(body), &got.sink);
  if (got.usage) {
    outcome.row.prompt_tokens = got.usage->prompt_tokens;
    outcome.row.completion_tokens = got.usage->completion_tokens;
    outcome.row.total_tokens = got.usage->total_tokens;
  }
  if (got.error) {
    spdlog::warn("request {}: provider '{}' answered HTTP {} -> {} {}", call.request_id, pcfg.name,
                 exchange.status(), got.error->status, got.error->code);
    return Attempt{Attempt::failed, *got.error};
  }
  if (st != MGW_OK || !got.has_body) {
    answer_error(call, plugin_failure(pcfg.name, "on_parse_response", st), outcome);
    return Attempt{};
  }
  std::string out;
  if (!http::append_with_request_id(out, got.body, call.request_id)) {
    answer_error(call,
                 http::ApiError{
                     502, "provider_failed", "the provider plugin produced a body that is not an object", {}},
                 outcome);
    return Attempt{};
  }
  call.send_json(200, out);
  return Attempt{};
}

ChatService::Attempt ChatService::relay_stream(http::Call& call, const RoutePlan& plan,
                                               const mgw_call_context& ctx, upstream::Exchange& exchange,
                                               Outcome& outcome) {
  const catalog::ModelRoute& route = *plan.route;
  const auto& hooks = route.provider->hooks();
  const auto& pcfg = route.provider->config();
  mgw_provider_stream* stream = nullptr;
  mgw_status st = hooks.on_stream_new(route.provider->handle(), &ctx, &stream);
  if (st != MGW_OK || stream == nullptr) {
    answer_error(call, plugin_failure(pcfg.name, "on_stream_new", st), outcome);
    return Attempt{};
  }
  struct StreamGuard {
    const mgw_provider_hooks& hooks;
    mgw_provider_stream* stream;
    ~StreamGuard() { hooks.on_stream_destroy(stream); }
  } guard{hooks, stream};

  StreamRelay relay(call, deps_.redactor);
  bool cancelled = false;
  char buffer[16384];
  // Bounded by the upstream: each read waits at most first_byte_timeout_ms,
  // the whole stream at most timeout_ms; the loop ends at the end of the body,
  // on an error, or when the client is gone.
  while (true) {
    std::size_t n = 0;
    try {
      n = exchange.read_some(buffer, sizeof buffer);
    } catch (const upstream::UpstreamFailure& f) {
      if (f.kind() == upstream::FailureKind::cancelled) {
        cancelled = true;
        break;
      }
      spdlog::warn("request {}: provider '{}': {}", call.request_id, pcfg.name, f.what());
      relay.fail(from_upstream_failure(f, pcfg.name));
      break;
    }
    if (n == 0) {
      st = hooks.on_stream_end(stream, relay.sink());
      if (st != MGW_OK && !relay.failed()) relay.fail(plugin_failure(pcfg.name, "on_stream_end", st));
      relay.finish();
      break;
    }
    st = hooks.on_stream_data(stream, mgw_str{buffer, n}, relay.sink());
    if (st != MGW_OK && !relay.failed()) relay.fail(plugin_failure(pcfg.name, "on_stream_data", st));
    if (relay.failed() || relay.client_gone()) {
      exchange.abort();  // stop the vendor generating tokens nobody reads
      break;
    }
  }
  const bool client_left = cancelled || relay.client_gone();
  if (relay.usage()) {
    outcome.row.prompt_tokens = relay.usage()->prompt_tokens;
    outcome.row.completion_tokens = relay.usage()->completion_tokens;
    outcome.row.total_tokens = relay.usage()->total_tokens;
  }
  if (client_left || (relay.failed() && relay.head_sent())) {
    // Cut short: keep what was seen. The vendor's count when it gave one,
    // else the host's prompt count and an estimate of what was relayed.
    if (outcome.row.prompt_tokens == 0) outcome.row.prompt_tokens = plan.prompt_tokens;
    const std::int64_t relayed = static_cast<std::int64_t>((relay.generated_bytes() + 3) / 4);
    outcome.row.completion_tokens = std::max<std::int64_t>(outcome.row.completion_tokens, relayed);
    outcome.row.total_tokens = outcome.row.prompt_tokens + outcome.row.completion_tokens;
  }
  outcome.row.ttft_us = relay.ttft_us();
  if (client_left) return Attempt{Attempt::cancelled, {}};
  if (relay.error()) {
    if (!relay.head_sent()) return Attempt{Attempt::failed, *relay.error()};  // nothing sent: may retry
    outcome.row.error_code = relay.error()->code;  // sent as the stream's last event
  }
  return Attempt{};
}

}  // namespace modelgw::chat
