#include "chat/upstream_attempt.h"

#include "chat/body_members.h"
#include "chat/plugin_sinks.h"
#include "chat/record.h"
#include "chat/sse_bounds.h"
#include "chat/sse_relay.h"
#include "chat/trace_headers.h"
#include "logging/request_log.h"
#include "util/json_write.h"

#include <modelgw/sdk.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace modelgw::chat {
namespace {

using Clock = std::chrono::steady_clock;

errors::ApiError from_upstream_failure(const upstream::UpstreamFailure& f, const std::string& provider) {
  errors::ApiError e;
  switch (f.kind()) {
    case upstream::FailureKind::timeout:
      e = errors::ApiError{504, "provider_timeout", "the upstream provider '" + provider + "' timed out", {}};
      break;
    case upstream::FailureKind::connect:
      e = errors::ApiError{
          502, "provider_failed", "the upstream provider '" + provider + "' could not be reached", {}};
      break;
    case upstream::FailureKind::busy:
      e = errors::ApiError{
          503,
          "provider_busy",
          "every connection to the upstream provider '" + provider + "' is busy; retry later",
          {}};
      break;
    case upstream::FailureKind::too_large:
      return errors::ApiError{502,
                              "provider_failed",
                              "the upstream provider '" + provider + "' sent a response larger than allowed",
                              {}};
      // not retryable: the same call would be as large again
    case upstream::FailureKind::io:
    case upstream::FailureKind::cancelled:
    default:
      e = errors::ApiError{
          502, "provider_failed", "the connection to the upstream provider '" + provider + "' failed", {}};
      break;
  }
  e.retryable = true;
  return e;
}

// The call outlasted server.shutdown_grace_ms while the gateway stopped.
errors::ApiError shutting_down() {
  return errors::ApiError{503,
                          "shutting_down",
                          "the gateway shut down before the answer was complete; retry on another instance",
                          {},
                          1,
                          true};
}

errors::ApiError plugin_failure(const std::string& provider, const char* hook, mgw_status status) {
  spdlog::error("provider '{}': {} returned status {} without an error", provider, hook, status);
  return errors::internal_error("the provider plugin for '" + provider + "' failed; report the request_id");
}

// After a stream hook: a plugin that broke the ABI, or a sink the host failed
// to run, fails the stream (once) with the 500 that names the plugin.
void fail_on_breach(AttemptContext& a, SseRelay& relay, const catalog::ModelRoute& route) {
  if (!relay.sink_failed() || relay.failed()) return;
  const auto& provider = *route.provider;
  logging::for_request(a.call.request_id())
      .error("provider '{}': the plugin {}", provider.name(), relay.breach());
  relay.fail(plugin_breach(provider.name(), provider.plugin_name(), relay.breach()));
}

// A native request told the output size the spend hold covers, as
// limit_output tells a chat request (spend_stage.cpp): the vendor cannot
// spend past it. `member` is the door's name for it (FrontDoor::output_limit_member).
std::string native_with_output_limit(std::string_view body, std::string_view member, std::int64_t tokens) {
  const std::string value = std::to_string(tokens);
  if (auto edited = with_member(body, member, value)) return std::move(*edited);
  auto doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object()) return std::string(body);
  doc[std::string(member)] = tokens;
  return util::json_text(doc);
}

// Waits `wait` unless the client hangs up first: then false.
net::Task<bool> wait_watching_client(http::ServerCall& call, std::chrono::milliseconds wait) {
  net::SteadyTimer timer(call.executor(), wait);
  net::ScopedSlot slot(call.client_gone_signal(), [&timer] { timer.cancel(); });
  boost::system::error_code ec;
  co_await timer.async_wait(net::asio::redirect_error(net::use_awaitable, ec));
  co_return !call.client_gone() && !call.shut_down();
}

// The outcome of an upstream call that threw: the client left, or a failure
// to answer (logged here; its message never holds a secret).
Attempt attempt_failed(const AttemptContext& a, const upstream::UpstreamFailure& f,
                       const std::string& provider) {
  if (f.kind() == upstream::FailureKind::cancelled) return Attempt{Attempt::cancelled, {}};
  logging::for_request(a.call.request_id()).warn("provider '{}': {}", provider, f.what());
  return Attempt{Attempt::failed, from_upstream_failure(f, provider)};
}

net::Task<Attempt> relay_whole(AttemptContext& a, const mgw_call_context& ctx, upstream::UpstreamCall& up) {
  const catalog::ModelRoute& route = *a.plan.route;
  const auto& pcfg = route.provider->config();
  std::string body;
  std::optional<Attempt> broken;
  try {
    body = co_await up.read_all();
  } catch (const upstream::UpstreamFailure& f) {
    broken = attempt_failed(a, f, pcfg.name);
  }
  if (broken) co_return *broken;
  // Views into the response head, which outlives the hook call: no copies.
  std::vector<mgw_header> headers;
  headers.reserve(up.headers().size());
  for (const auto& [name, value] : up.headers())
    headers.push_back(mgw_header{mgw::str(name), mgw::str(value)});

  ResponseCollector got;
  const mgw_status st = route.provider->hooks().on_parse_response(
      route.provider->handle(), &ctx, up.status(), headers.data(), headers.size(), mgw::str(body), &got.sink);
  if (got.state.failed()) {
    logging::for_request(a.call.request_id())
        .error("provider '{}': on_parse_response: the plugin {}", pcfg.name, got.state.breach);
    answer_error(a.call, plugin_breach(pcfg.name, route.provider->plugin_name(), got.state.breach), a.outcome,
                 a.redactor);
    co_return Attempt{};
  }
  if (got.usage) {
    auto& row = a.outcome.row;
    row.prompt_tokens = got.usage->prompt_tokens;
    row.completion_tokens = got.usage->completion_tokens;
    row.total_tokens = got.usage->total_tokens;
    row.cached_prompt_tokens = got.usage->cached_prompt_tokens;
    row.cache_write_prompt_tokens = got.usage->cache_write_prompt_tokens;
    if (row.prompt_tokens == 0 && got.error == std::nullopt && a.collected == nullptr) {
      // The vendor gave no prompt count and the host did not need one to
      // route: count it now, for the record.
      row.prompt_tokens = count_prompt_tokens(*a.plan.route, a.body);
      row.total_tokens = std::max(row.total_tokens, row.prompt_tokens + row.completion_tokens);
    }
  }
  if (got.error) {
    logging::for_request(a.call.request_id())
        .warn("provider '{}' answered HTTP {} -> {} {}", pcfg.name, up.status(), got.error->status,
              got.error->code);
    co_return Attempt{Attempt::failed, *got.error};
  }
  if (st != MGW_OK || !got.has_body) {
    answer_error(a.call, plugin_failure(pcfg.name, "on_parse_response", st), a.outcome, a.redactor);
    co_return Attempt{};
  }
  if (a.collected != nullptr) {
    *a.collected = std::move(got.body);
    co_return Attempt{};
  }
  std::string out;
  if (a.outcome.shaper) {
    // Another door's answer: the door writes it from the chat completion.
    auto shaped = a.outcome.shaper->whole(got.body, a.call.request_id());
    if (!shaped) {
      answer_error(a.call,
                   errors::ApiError{502,
                                    "provider_failed",
                                    "the provider plugin produced a body that is not the answer this API "
                                    "reads",
                                    {}},
                   a.outcome, a.redactor);
      co_return Attempt{};
    }
    co_await a.outcome.shaper->complete(std::nullopt);
    a.call.send_json(200, *shaped);
    co_return Attempt{};
  }
  if (!http::append_with_request_id(out, got.body, a.call.request_id())) {
    answer_error(a.call,
                 errors::ApiError{
                     502, "provider_failed", "the provider plugin produced a body that is not an object", {}},
                 a.outcome, a.redactor);
    co_return Attempt{};
  }
  a.call.send_json(200, out);
  co_return Attempt{};
}

net::Task<Attempt> relay_stream(AttemptContext& a, const mgw_call_context& ctx, upstream::UpstreamCall& up) {
  const catalog::ModelRoute& route = *a.plan.route;
  const auto& hooks = route.provider->hooks();
  const auto& pcfg = route.provider->config();
  mgw_provider_stream* stream = nullptr;
  mgw_status st = hooks.on_stream_new(route.provider->handle(), &ctx, &stream);
  if (!plugins::keep_new_handle(st, stream, hooks.on_stream_destroy)) {
    answer_error(a.call, plugin_failure(pcfg.name, "on_stream_new", st), a.outcome, a.redactor);
    co_return Attempt{};
  }
  struct StreamGuard {
    const mgw_provider_hooks& hooks;
    mgw_provider_stream* stream;
    ~StreamGuard() { hooks.on_stream_destroy(stream); }
  } guard{hooks, stream};

  SseRelay relay(a.call, a.redactor, a.outcome.shaper.get());
  SseBounds bounds(pcfg.max_sse_line_bytes, pcfg.max_sse_event_bytes);
  bool cancelled = false;
  // Bounded by the upstream: each read waits at most first_byte_timeout_ms,
  // the whole stream at most timeout_ms and max_response_bytes; the loop ends
  // at the end of the body, on an error, or when the client is gone.
  while (true) {
    std::string_view piece;
    std::optional<upstream::UpstreamFailure> failure;
    try {
      piece = co_await up.read_some();
    } catch (const upstream::UpstreamFailure& f) {
      failure = f;
    }
    if (failure) {
      if (failure->kind() == upstream::FailureKind::cancelled) {
        cancelled = true;
      } else {
        logging::for_request(a.call.request_id()).warn("provider '{}': {}", pcfg.name, failure->what());
        relay.fail(from_upstream_failure(*failure, pcfg.name));
      }
      break;
    }
    if (piece.empty()) {
      st = hooks.on_stream_end(stream, relay.sink());
      fail_on_breach(a, relay, route);
      if (st != MGW_OK && !relay.failed()) relay.fail(plugin_failure(pcfg.name, "on_stream_end", st));
      if (a.outcome.shaper && !relay.failed() && !a.call.client_gone())
        co_await a.outcome.shaper->complete(relay.usage());
      relay.finish();
      break;
    }
    if (!bounds.feed(piece)) {
      logging::for_request(a.call.request_id())
          .warn("provider '{}' sent an event stream {} over its bound", pcfg.name, bounds.passed());
      relay.fail(errors::ApiError{502,
                                  "provider_failed",
                                  "the upstream provider '" + pcfg.name + "' sent a stream " +
                                      bounds.passed() + " longer than allowed",
                                  {}});
      up.abort();
      break;
    }
    st = hooks.on_stream_data(stream, mgw::str(piece), relay.sink());
    fail_on_breach(a, relay, route);
    if (st != MGW_OK && !relay.failed()) relay.fail(plugin_failure(pcfg.name, "on_stream_data", st));
    if (relay.head_sent() && !co_await a.call.flush()) {
      up.abort();  // stop the vendor generating tokens nobody reads
      cancelled = true;
      break;
    }
    if (relay.failed()) {
      up.abort();
      break;
    }
  }
  // Ended by the server at its shutdown deadline, not left by the client:
  // a stream under way gets a final error event and is recorded as such.
  const bool ended = cancelled && a.call.shut_down();
  if (ended) relay.fail(shutting_down());
  if (relay.head_sent()) (void)co_await a.call.flush();
  const bool client_left = (cancelled && !ended) || a.call.client_gone();
  auto& row = a.outcome.row;
  if (relay.usage()) {
    row.prompt_tokens = relay.usage()->prompt_tokens;
    row.completion_tokens = relay.usage()->completion_tokens;
    row.total_tokens = relay.usage()->total_tokens;
    row.cached_prompt_tokens = relay.usage()->cached_prompt_tokens;
    row.cache_write_prompt_tokens = relay.usage()->cache_write_prompt_tokens;
  }
  if (client_left || (relay.failed() && relay.head_sent())) {
    // Cut short: keep what was seen. The vendor's count when it gave one,
    // else the host's prompt count and an estimate of what was relayed.
    if (row.prompt_tokens == 0) row.prompt_tokens = a.plan.prompt_tokens;
    if (row.prompt_tokens == 0) row.prompt_tokens = count_prompt_tokens(*a.plan.route, a.body);
    const auto relayed = static_cast<std::int64_t>((relay.generated_bytes() + 3) / 4);
    row.completion_tokens = std::max<std::int64_t>(row.completion_tokens, relayed);
    row.total_tokens = row.prompt_tokens + row.completion_tokens;
  } else if (row.prompt_tokens == 0 && !relay.failed()) {
    // A whole stream whose vendor gave no prompt count, and a plugin that had
    // no count from the host either (it was not needed to route): count it
    // now, for the record, as for a whole body.
    row.prompt_tokens = count_prompt_tokens(*a.plan.route, a.body);
    row.total_tokens = std::max(row.total_tokens, row.prompt_tokens + row.completion_tokens);
  }
  row.ttft_us = relay.ttft_us();
  if (client_left) co_return Attempt{Attempt::cancelled, {}};
  if (relay.error()) {
    if (!relay.head_sent()) co_return Attempt{Attempt::failed, *relay.error()};  // nothing sent: may retry
    row.error_code = relay.error()->code;  // sent as the stream's last event
  }
  co_return Attempt{};
}

net::Task<Attempt> attempt_once(AttemptContext& a, const mgw_call_context& ctx,
                                const upstream::OutgoingRequest& outgoing) {
  const auto& pcfg = a.plan.route->provider->config();
  upstream::Timeouts timeouts;
  timeouts.first_byte = std::chrono::milliseconds(pcfg.first_byte_timeout_ms);
  timeouts.total = std::chrono::milliseconds(pcfg.timeout_ms);
  upstream::UpstreamCall up(*a.plan.route->upstream, timeouts, pcfg.max_response_bytes,
                            a.call.client_gone_signal());
  std::optional<Attempt> broken;
  try {
    co_await up.start(outgoing);
  } catch (const upstream::UpstreamFailure& f) {
    broken = attempt_failed(a, f, pcfg.name);
  }
  if (broken) co_return *broken;
  if (a.request.stream && up.status() >= 200 && up.status() < 300)
    co_return co_await relay_stream(a, ctx, up);
  co_return co_await relay_whole(a, ctx, up);
}

}  // namespace

std::vector<mgw_header> forwarded_client_headers(const http::ServerCall& call, const FrontDoor* door) {
  std::vector<mgw_header> out;
  if (door == nullptr) return out;
  for (const std::string_view name : door->forwarded_headers()) {
    const std::string_view value = call.request().header(name);
    if (!value.empty()) out.push_back(mgw_header{mgw::str(name), mgw::str(value)});
  }
  return out;
}

net::Task<bool> try_model(AttemptContext& a, std::string_view body, errors::ApiError& last_error) {
  const catalog::ModelRoute& route = *a.plan.route;
  a.body = body;
  ++a.outcome.models;
  auto& row = a.outcome.row;
  row.alias = route.entry.alias;
  row.provider = route.provider->name();
  row.upstream_model = route.entry.model;
  // Sent in the door's own API when this model's provider serves it
  // natively; otherwise as the chat request, with what it cannot take dropped.
  const bool native = !a.native_body.empty() && route.provider->serves_natively(a.native_operation);
  if (a.outcome.shaper) a.outcome.shaper->use_native(native);
  if (a.plan.dropped.empty() || native) {
    a.call.erase_header("X-Dropped-Params");
  } else {
    a.call.set_header("X-Dropped-Params", join_names(a.plan.dropped));
  }

  mgw_call_context ctx{};
  ctx.struct_size = sizeof ctx;
  ctx.request_id = mgw::str(a.call.request_id());
  ctx.alias = mgw::str(route.entry.alias);  // a tier answers with the model that served it
  ctx.upstream_model = mgw::str(route.entry.model);
  ctx.created_unix = row.created_unix_ms / 1000;
  ctx.stream = a.request.stream ? 1 : 0;
  ctx.default_max_tokens = a.plan.default_max_tokens;
  ctx.prompt_tokens = a.plan.prompt_tokens;
  ctx.operation = mgw::str(native ? a.native_operation : std::string_view(MGW_OPERATION_CHAT));
  if (native && !a.client_headers.empty()) {
    ctx.client_headers = a.client_headers.data();
    ctx.client_header_count = a.client_headers.size();
  } else if (!a.client_headers.empty()) {
    // A vendor header (anthropic-beta) means nothing to another vendor's API.
    logging::for_request(a.call.request_id())
        .info("the client's {} header is not passed to provider '{}', which does not serve this API natively",
              mgw::view(a.client_headers.front().name), route.provider->name());
  }

  const auto& hooks = route.provider->hooks();
  RequestCollector built;
  std::string limited;  // the native request with the spend hold's output limit
  if (native && a.plan.output_limit > 0)
    limited = native_with_output_limit(a.native_body, a.native_limit_member, a.plan.output_limit);
  const std::string_view sent = native ? (limited.empty() ? a.native_body : std::string_view(limited))
                                : a.plan.body.empty() ? body
                                                      : std::string_view(a.plan.body);
  // The member index (ABI 1.1) lets the plugin splice the body instead of
  // parsing it again; it points into `sent`, so it is for this hook only.
  const auto members = index_members(sent);
  if (members) {
    ctx.members = members->data();
    ctx.member_count = members->size();
  }
  const mgw_status st =
      hooks.on_build_request(route.provider->handle(), &ctx, mgw::str(sent), &built.sink, &built.error_sink);
  if (ctx.operation.len == 0 || mgw::view(ctx.operation) != MGW_OPERATION_EMBEDDINGS) {
    ctx.members = nullptr;
    ctx.member_count = 0;
  }
  // An embeddings call keeps the index for on_parse_response (plugin.h): the
  // answer's form (float or base64) and its count of items are the request's.
  // `sent` and `members` outlive every try of this model.
  if (built.state.failed()) {
    // Nothing of a request the plugin built wrong reaches the wire.
    logging::for_request(a.call.request_id())
        .error("provider '{}': on_build_request: the plugin {}", route.provider->name(), built.state.breach);
    answer_error(a.call,
                 plugin_breach(route.provider->name(), route.provider->plugin_name(), built.state.breach),
                 a.outcome, a.redactor);
    co_return true;
  }
  if (built.error) {
    answer_error(a.call, *built.error, a.outcome, a.redactor);  // the request itself is wrong for this vendor
    co_return true;
  }
  if (st != MGW_OK || built.request.path.empty()) {
    answer_error(a.call, plugin_failure(route.provider->name(), "on_build_request", st), a.outcome,
                 a.redactor);
    co_return true;
  }
  set_trace_headers(built.request.headers, a.call.trace());

  // Bounded: at most max_attempts tries, and no wait past the retry budget.
  for (int attempt = 0; attempt < a.policy.max_attempts(); ++attempt) {
    ++a.outcome.attempts;
    const auto tried_at = Clock::now();
    Attempt result = co_await attempt_once(a, ctx, built.request);
    a.outcome.upstream_us +=
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - tried_at).count();
    if (result.kind == Attempt::served) co_return true;
    if (a.call.shut_down()) {  // nothing sent yet; no retry while shutting down
      answer_error(a.call, shutting_down(), a.outcome, a.redactor);
      co_return true;
    }
    if (result.kind == Attempt::cancelled) {
      row.error_code = "client_disconnected";
      co_return true;
    }
    if (!is_retryable(result.error)) {
      answer_error(a.call, result.error, a.outcome, a.redactor);
      co_return true;
    }
    last_error = std::move(result.error);
    if (attempt + 1 >= a.policy.max_attempts()) break;
    const auto wait = a.policy.wait_after(last_error, attempt, jitter_draw());
    if (Clock::now() + wait > a.budget_end) {
      logging::for_request(a.call.request_id())
          .info("model '{}': a retry in {} ms would pass the retry budget", route.entry.alias, wait.count());
      break;
    }
    logging::for_request(a.call.request_id())
        .info("model '{}' answered {} {}; retry {} in {} ms", route.entry.alias, last_error.status,
              last_error.code, attempt + 1, wait.count());
    if (!co_await wait_watching_client(a.call, wait)) {
      if (a.call.shut_down()) {
        answer_error(a.call, shutting_down(), a.outcome, a.redactor);
        co_return true;
      }
      row.error_code = "client_disconnected";
      co_return true;
    }
  }
  co_return false;
}

}  // namespace modelgw::chat
