#include "chat/chat_service.h"

#include "chat/chat_request.h"
#include "chat/plugin_sinks.h"
#include "chat/stream_relay.h"
#include "http/body_reader.h"

#include <modelgw/sdk.hpp>

#include <spdlog/spdlog.h>

#include <chrono>

namespace modelgw::chat {
namespace {

std::int64_t unix_ms_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

http::ApiError from_upstream_failure(const upstream::UpstreamFailure& f, const std::string& provider) {
  switch (f.kind()) {
    case upstream::FailureKind::timeout:
      return http::ApiError{
          504, "provider_timeout", "the upstream provider '" + provider + "' timed out", {}};
    case upstream::FailureKind::connect:
      return http::ApiError{
          502, "provider_failed", "the upstream provider '" + provider + "' could not be reached", {}};
    case upstream::FailureKind::too_large:
      return http::ApiError{502,
                            "provider_failed",
                            "the upstream provider '" + provider + "' sent a response larger than allowed",
                            {}};
    case upstream::FailureKind::io:
    default:
      return http::ApiError{
          502, "provider_failed", "the connection to the upstream provider '" + provider + "' failed", {}};
  }
}

http::ApiError plugin_failure(const std::string& provider, const char* hook, mgw_status status) {
  spdlog::error("provider '{}': {} returned status {} without an error", provider, hook, status);
  return http::internal_error("the provider plugin for '" + provider + "' failed; report the request_id");
}

}  // namespace

// What one call amounted to, for its usage record.
struct ChatService::Outcome {
  plugins::UsageRow row;
  bool streamed = false;
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
  outcome.row.http_status = call.status_sent == 0 ? 500 : call.status_sent;
  outcome.row.latency_us = call.elapsed_us();
  outcome.row.streamed = outcome.streamed;
  if (outcome.row.total_tokens == 0) {
    outcome.row.total_tokens = outcome.row.prompt_tokens + outcome.row.completion_tokens;
  }
  spdlog::info("{} tenant={} model={} status={} error={} tokens={} latency_us={}", call.request_id,
               principal.tenant_name, outcome.row.alias.empty() ? "-" : outcome.row.alias,
               outcome.row.http_status, outcome.row.error_code.empty() ? "-" : outcome.row.error_code,
               outcome.row.total_tokens, outcome.row.latency_us);
  deps_.usage.enqueue(std::move(outcome.row));
}

void ChatService::serve(http::Call& call, Outcome& outcome) {
  auto body = http::read_body(call.request, deps_.max_body_bytes);
  call.body_settled = true;  // read, or refused as too large (answer_error drains it after the 413)
  if (auto* err = std::get_if<http::ApiError>(&body)) return answer_error(call, *err, outcome);
  const std::string& text = std::get<std::string>(body);

  auto parsed = parse_chat_request(text);
  if (auto* err = std::get_if<http::ApiError>(&parsed)) return answer_error(call, *err, outcome);
  const ChatRequest& req = std::get<ChatRequest>(parsed);
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
  const catalog::ModelRoute* route = deps_.catalog.find(req.model);
  if (route == nullptr) {
    return answer_error(call,
                        http::not_found("model_not_found",
                                        "model '" + req.model +
                                            "' is not in the catalog; GET /v1/models lists the "
                                            "aliases you can use",
                                        "model"),
                        outcome);
  }
  outcome.row.alias = route->entry.alias;
  outcome.row.provider = route->provider->name();
  outcome.row.upstream_model = route->entry.model;

  mgw_call_context ctx{};
  ctx.struct_size = sizeof ctx;
  ctx.request_id = mgw::str(call.request_id);
  ctx.alias = mgw::str(route->entry.alias);
  ctx.upstream_model = mgw::str(route->entry.model);
  ctx.created_unix = outcome.row.created_unix_ms / 1000;
  ctx.stream = req.stream ? 1 : 0;

  const auto& hooks = route->provider->hooks();
  RequestCollector built;
  mgw_status st =
      hooks.on_build_request(route->provider->handle(), &ctx, mgw::str(text), &built.sink, &built.error_sink);
  if (built.error) return answer_error(call, *built.error, outcome);
  if (st != MGW_OK || built.request.path.empty()) {
    return answer_error(call, plugin_failure(route->provider->name(), "on_build_request", st), outcome);
  }

  const auto& pcfg = route->provider->config();
  upstream::Exchange exchange(*route->pool, pcfg.timeout_ms);
  try {
    exchange.start(built.request);
  } catch (const upstream::UpstreamFailure& f) {
    spdlog::warn("request {}: provider '{}': {}", call.request_id, pcfg.name, f.what());
    return answer_error(call, from_upstream_failure(f, pcfg.name), outcome);
  }
  if (req.stream && exchange.status() >= 200 && exchange.status() < 300) {
    relay_stream(call, *route, ctx, exchange, outcome);
  } else {
    relay_whole(call, *route, ctx, exchange, outcome);
  }
}

void ChatService::relay_whole(http::Call& call, const catalog::ModelRoute& route, const mgw_call_context& ctx,
                              upstream::Exchange& exchange, Outcome& outcome) {
  const auto& pcfg = route.provider->config();
  std::string body;
  try {
    body = exchange.read_all(pcfg.max_response_bytes);
  } catch (const upstream::UpstreamFailure& f) {
    spdlog::warn("request {}: provider '{}': {}", call.request_id, pcfg.name, f.what());
    return answer_error(call, from_upstream_failure(f, pcfg.name), outcome);
  }
  // Views into the response head, which outlives the hook call: no copies.
  std::vector<mgw_header> headers;
  for (const auto& [name, value] : exchange.response())
    headers.push_back(mgw_header{mgw::str(name), mgw::str(value)});

  ResponseCollector got;
  mgw_status st =
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
    return answer_error(call, *got.error, outcome);
  }
  if (st != MGW_OK || !got.has_body) {
    return answer_error(call, plugin_failure(pcfg.name, "on_parse_response", st), outcome);
  }
  std::string out;
  if (!http::append_with_request_id(out, got.body, call.request_id)) {
    return answer_error(call,
                        http::ApiError{502,
                                       "provider_failed",
                                       "the provider plugin produced a body that is not an "
                                       "object",
                                       {}},
                        outcome);
  }
  call.send_json(200, out);
}

void ChatService::relay_stream(http::Call& call, const catalog::ModelRoute& route,
                               const mgw_call_context& ctx, upstream::Exchange& exchange, Outcome& outcome) {
  const auto& hooks = route.provider->hooks();
  const auto& pcfg = route.provider->config();
  mgw_provider_stream* stream = nullptr;
  mgw_status st = hooks.on_stream_new(route.provider->handle(), &ctx, &stream);
  if (st != MGW_OK || stream == nullptr) {
    return answer_error(call, plugin_failure(pcfg.name, "on_stream_new", st), outcome);
  }
  struct StreamGuard {
    const mgw_provider_hooks& hooks;
    mgw_provider_stream* stream;
    ~StreamGuard() { hooks.on_stream_destroy(stream); }
  } guard{hooks, stream};

  StreamRelay relay(call, deps_.redactor);
  char buffer[16384];
  // Bounded by the upstream: each read waits at most timeout_ms, and the loop
  // ends at the end of the body, on an error, or when the client is gone.
  while (true) {
    std::size_t n = 0;
    try {
      n = exchange.read_some(buffer, sizeof buffer);
    } catch (const upstream::UpstreamFailure& f) {
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
  if (relay.usage()) {
    outcome.row.prompt_tokens = relay.usage()->prompt_tokens;
    outcome.row.completion_tokens = relay.usage()->completion_tokens;
    outcome.row.total_tokens = relay.usage()->total_tokens;
  }
  outcome.row.ttft_us = relay.ttft_us();
  if (relay.client_gone()) {
    outcome.row.error_code = "client_disconnected";
  } else if (relay.error()) {
    outcome.row.error_code = relay.error()->code;
    relay.send_pending_error();
  }
}

}  // namespace modelgw::chat
