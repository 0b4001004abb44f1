#include "api/router.h"

#include "api/openapi_document.h"
#include "api/readiness.h"
#include "errors/anthropic_error.h"
#include "messages/anthropic_version.h"
#include "prompts/prompt_version.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <spdlog/spdlog.h>

namespace modelgw::api {
namespace {

errors::ApiError method_not_allowed(std::string_view method, std::string_view path, const char* allowed) {
  return errors::ApiError{405,
                          "method_not_allowed",
                          errors::input_excerpt(method) + " is not allowed on " +
                              errors::input_excerpt(path, 128) + "; use " + allowed,
                          {}};
}

// False (and the 405 answered) when `method` is not `allowed`.
bool method_is(http::ServerCall& call, const char* allowed) {
  if (call.request().method == allowed) return true;
  call.set_header("Allow", allowed);
  call.send_error(method_not_allowed(call.request().method, call.request().path(), allowed));
  return false;
}

}  // namespace

// Every endpoint has a coroutine of its own, with only its own locals: a
// call's frames are held for its whole life (a stream's for minutes), and a
// frame has a slot for every local of every branch, so one coroutine for
// all endpoints made each stream hold a principal per endpoint.
net::Task<void> Router::handle(http::ServerCall& call) {
  const std::string_view path = call.request().path();
  if (path == "/v1/chat/completions") {
    co_await serve_chain(call, nullptr);
  } else if (path == "/v1/responses") {
    co_await serve_chain(call, &responses_door_);
  } else if (path == "/v1/messages" || path == "/v1/messages/count_tokens") {
    co_await serve_messages(
        call, path == "/v1/messages" ? static_cast<const chat::FrontDoor*>(&messages_door_) : &count_door_);
  } else if (path == "/v1/embeddings") {
    co_await serve_chain(call, &embeddings_door_);
  } else {
    co_await serve_other(call);
  }
}

// POST through the chat chain behind `door` (nullptr: chat itself; the
// Responses API and embeddings have the chat scope too).
net::Task<void> Router::serve_chain(http::ServerCall& call, const chat::FrontDoor* door) {
  if (!method_is(call, "POST")) co_return;
  if (auto principal = co_await authenticate(deps_.auth, call, "chat")) {
    const auto routes = deps_.routes.current();  // held to the end of the call
    co_await routes->chat->handle(call, *principal, door);
  }
}

// Anthropic's Messages API: its error envelope on every answer of these
// paths (the SDK's error classes read it), its request-id header, the key
// in x-api-key or Authorization, and its version header checked.
net::Task<void> Router::serve_messages(http::ServerCall& call, const chat::FrontDoor* door) {
  call.set_error_writer(&errors::anthropic_error_envelope);
  call.set_header("request-id", call.request_id());
  if (!method_is(call, "POST")) co_return;
  // Before the key: a refused version is the same mistake whoever sends it
  // (and an authenticated call always leaves its usage record).
  if (auto wrong = messages::check_anthropic_version(call.request().header("anthropic-version"))) {
    call.send_error(*wrong);
    co_return;
  }
  if (auto principal =
          co_await authenticate(deps_.auth, call, "chat", CredentialHeaders::bearer_or_api_key)) {
    const auto routes = deps_.routes.current();
    co_await routes->chat->handle(call, *principal, door);
  }
}

// Everything but the chain: stored responses, models, prompts, the tenant's
// and the admin's reads, probes, metrics, the console.
net::Task<void> Router::serve_other(http::ServerCall& call) {
  const std::string_view path = call.request().path();
  constexpr std::string_view kResponse = "/v1/responses/";
  if (path.size() > kResponse.size() && path.substr(0, kResponse.size()) == kResponse) {
    const std::string_view rest = path.substr(kResponse.size());
    const auto slash = rest.find('/');
    const std::string_view id = rest.substr(0, slash);
    const std::string_view sub =
        slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (!id.empty() && (slash == std::string_view::npos || sub == "input_items")) {
      const bool items = slash != std::string_view::npos;
      const std::string_view method = call.request().method;
      if (items ? method != "GET" : method != "GET" && method != "DELETE") {
        const char* allowed = items ? "GET" : "GET, DELETE";
        call.set_header("Allow", allowed);
        call.send_error(method_not_allowed(method, path, allowed));
        co_return;
      }
      if (auto principal = co_await authenticate(deps_.auth, call, "chat")) {
        std::string owned(id);  // named: see Connection::refuse on temporaries
        co_await stored_response(call, *principal, std::move(owned), items);
      }
      co_return;
    }
  }
  if (path == "/v1/models") {
    if (!method_is(call, "GET")) co_return;
    if (co_await authenticate(deps_.auth, call, "chat")) {
      call.send_object(200, deps_.routes.current()->catalog.models_json());
    }
    co_return;
  }
  constexpr std::string_view kPrompts = "/v1/prompts/";
  if (path.size() > kPrompts.size() && path.substr(0, kPrompts.size()) == kPrompts &&
      path.find('/', kPrompts.size()) == std::string_view::npos) {
    if (!method_is(call, "GET")) co_return;
    if (auto principal = co_await authenticate(deps_.auth, call, "prompts:read")) {
      std::string encoded(path.substr(kPrompts.size()));  // named: see Connection::refuse on temporaries
      co_await get_prompt(call, *principal, std::move(encoded));
    }
    co_return;
  }
  if (path == "/v1/usage" || path == "/internal/v1/usage") {
    if (!method_is(call, "GET")) co_return;
    const bool internal = path != "/v1/usage";
    if (auto principal = co_await authenticate(deps_.auth, call, internal ? "admin" : "usage:read"))
      co_await get_usage(call, *principal, internal);
    co_return;
  }
  if (path == "/v1/budgets") {
    if (!method_is(call, "GET")) co_return;
    if (auto principal = co_await authenticate(deps_.auth, call, "budgets:read")) {
      co_await get_budgets(call, *principal);
    }
    co_return;
  }
  if (path == "/v1/audit" || path == "/internal/v1/audit") {
    if (!method_is(call, "GET")) co_return;
    const bool internal = path != "/v1/audit";
    if (auto principal = co_await authenticate(deps_.auth, call, internal ? "admin" : "audit:read")) {
      co_await get_audit(call, *principal, internal);
    }
    co_return;
  }
  if (path == "/internal/v1/audit/verify") {
    if (!method_is(call, "GET")) co_return;
    if (auto principal = co_await authenticate(deps_.auth, call, "admin"))
      co_await verify_audit(call, *principal);
    co_return;
  }
  if (path == "/internal/v1" || path.substr(0, 13) == "/internal/v1/") {
    if (auto principal = co_await authenticate(deps_.auth, call, "admin")) co_await admin(call, *principal);
    co_return;
  }
  if (path == kOpenapiPath) {
    send_openapi_document(call);
    co_return;
  }
  if (path == "/healthz") {
    if (!method_is(call, "GET")) co_return;
    call.send_json(200, "{\"request_id\":\"" + call.request_id() + "\",\"status\":\"ok\"}");
    co_return;
  }
  if (path == "/readyz") {
    if (!method_is(call, "GET")) co_return;
    const ReadinessState checks = deps_.readiness != nullptr
                                      ? co_await deps_.readiness->current(deps_.auth.blocking)
                                      : ReadinessState{};
    if (deps_.audit != nullptr) {
      const auto audit = deps_.audit->status();
      send_readiness(call, deps_.usage.status(), deps_.usage.recording(), &audit, checks);
    } else {
      send_readiness(call, deps_.usage.status(), deps_.usage.recording(), nullptr, checks);
    }
    co_return;
  }
  if (path == "/metrics" && deps_.metrics != nullptr) {
    if (!method_is(call, "GET")) co_return;
    send_metrics(call, *deps_.metrics);
    co_return;
  }
  if (deps_.console != nullptr && deps_.console->owns(path)) {
    deps_.console->serve(call);
    co_return;
  }
  call.send_error(errors::not_found("not_found", "no endpoint at " +
                                                     errors::input_excerpt(call.request().method) + " " +
                                                     errors::input_excerpt(path, 128)));
}

// GET /v1/prompts/{name}[?version=N]: the active version, or the one asked for.
net::Task<void> Router::get_prompt(http::ServerCall& call, const auth::Principal& principal,
                                   std::string encoded) {
  std::string name;
  std::int64_t version = 0;
  Poco::URI::QueryParameters query;
  try {
    Poco::URI::decode(encoded, name);
    query = Poco::URI("/?" + std::string(call.request().query())).getQueryParameters();
  } catch (const Poco::Exception&) {
    call.send_error(
        errors::bad_request("invalid_parameter", "the path or query string is not valid URI syntax"));
    co_return;
  }
  for (const auto& [key, value] : query) {
    if (key != "version") continue;
    if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(value) < 1) {
      call.send_error(
          errors::bad_request("invalid_parameter", "'version' must be a positive integer", "version"));
      co_return;
    }
    version = std::stoll(value);
  }
  if (!prompts::is_prompt_name(name)) {
    call.send_error(errors::not_found("prompt_not_found",
                                      "no prompt named '" + errors::input_excerpt(name) + "' exists"));
    co_return;
  }
  // The store may go to storage: off the loop.
  auto found = co_await net::offload(deps_.auth.blocking, [&]() -> std::optional<errors::ApiError> {
    auto prompt = deps_.prompts.find(principal.tenant_id, name, version);
    if (!prompt) {
      if (version != 0 && deps_.prompts.find(principal.tenant_id, name, 0)) {
        return errors::not_found(
            "prompt_not_found",
            "prompt '" + errors::input_excerpt(name) + "' has no version " + std::to_string(version),
            "version");
      }
      return errors::not_found(
          "prompt_not_found", "no prompt named '" + errors::input_excerpt(name) + "' exists for this tenant");
    }
    call.send_object(
        200, prompts::to_json(*prompt).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return std::nullopt;
  });
  if (found) call.send_error(*found);
}

net::Task<void> Router::admin(http::ServerCall& call, const auth::Principal& principal) {
  const http::Request& r = call.request();
  admin::AdminRequest request{r.method, r.path(), r.body, r.body_too_large, call.request_id()};
  // Admin operations write to storage: off the loop.
  admin::AdminReply reply =
      co_await net::offload(deps_.auth.blocking, [&] { return deps_.admin.answer(request, principal); });
  if (!reply.allow.empty()) call.set_header("Allow", reply.allow);
  if (reply.status >= 400) {
    call.send_error(reply.error);
  } else {
    call.send_json(reply.status, reply.body);
  }
}

}  // namespace modelgw::api
