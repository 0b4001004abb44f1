#include "http/router.h"

#include "http/call.h"
#include "http/request_id.h"
#include "prompts/prompt_version.h"

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/URI.h>

#include <spdlog/spdlog.h>

namespace modelgw::http {
namespace {

struct InFlight {
  std::atomic<int>& n;
  explicit InFlight(std::atomic<int>& counter) : n(counter) { ++n; }
  ~InFlight() { --n; }
};

ApiError method_not_allowed(const std::string& method, const std::string& path, const char* allowed) {
  return ApiError{405, "method_not_allowed", method + " is not allowed on " + path + "; use " + allowed, {}};
}

std::optional<auth::Principal> authenticate(const RouterDeps& deps, Call& call, const char* scope) {
  auto result = deps.authenticator.authenticate(call.request.get("Authorization", ""));
  if (auto* err = std::get_if<ApiError>(&result)) {
    call.send_error(*err);
    return std::nullopt;
  }
  auto& principal = std::get<auth::Principal>(result);
  if (!principal.has_scope(scope)) {
    call.send_error(ApiError{403,
                             "permission_denied",
                             std::string(principal.key_id != 0 ? "this API key" : "this token") +
                                 " lacks the '" + scope + "' scope needed here",
                             {}});
    return std::nullopt;
  }
  if (auto refused = deps.gate.check(principal)) {
    call.send_error(*refused);
    return std::nullopt;
  }
  return std::move(principal);
}

// GET /v1/prompts/{name}[?version=N]: the active version, or the one asked for.
void get_prompt(const RouterDeps& deps, Call& call, const auth::Principal& principal,
                const std::string& encoded) {
  std::string name;
  Poco::URI::decode(encoded, name);
  std::int64_t version = 0;
  Poco::URI::QueryParameters query;
  try {
    query = Poco::URI(call.request.getURI()).getQueryParameters();
  } catch (const Poco::Exception&) {
    return call.send_error(bad_request("invalid_parameter", "the query string is not valid URI syntax"));
  }
  for (const auto& [key, value] : query) {
    if (key != "version") continue;
    if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(value) < 1) {
      return call.send_error(
          bad_request("invalid_parameter", "'version' must be a positive integer", "version"));
    }
    version = std::stoll(value);
  }
  if (!prompts::is_prompt_name(name)) {
    return call.send_error(
        not_found("prompt_not_found", "no prompt named '" + name.substr(0, 64) + "' exists"));
  }
  auto prompt = deps.prompts.find(principal.tenant_id, name, version);
  if (!prompt) {
    if (version != 0 && deps.prompts.find(principal.tenant_id, name, 0)) {
      return call.send_error(not_found(
          "prompt_not_found", "prompt '" + name + "' has no version " + std::to_string(version), "version"));
    }
    return call.send_error(
        not_found("prompt_not_found", "no prompt named '" + name + "' exists for this tenant"));
  }
  std::string body;
  append_with_request_id(
      body, prompts::to_json(*prompt).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      call.request_id);
  call.send_json(200, body);
}

}  // namespace

void Router::dispatch(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  InFlight counted(in_flight_);
  // Answers go out as a head write and a body write; TCP_NODELAY keeps the
  // second from waiting on the client's ACK of the first.
  static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().setNoDelay(true);
  Call call{request, response, new_request_id()};
  call.drain_limit = deps_.max_body_bytes;
  try {
    const std::string& uri = request.getURI();
    const std::string path = uri.substr(0, uri.find('?'));
    const std::string& method = request.getMethod();
    if (path == "/v1/chat/completions") {
      if (method != "POST") {
        response.set("Allow", "POST");
        return call.send_error(method_not_allowed(method, path, "POST"));
      }
      if (auto principal = authenticate(deps_, call, "chat")) deps_.chat.handle(call, *principal);
      return;
    }
    if (path == "/v1/models") {
      if (method != "GET") {
        response.set("Allow", "GET");
        return call.send_error(method_not_allowed(method, path, "GET"));
      }
      if (authenticate(deps_, call, "chat")) {
        std::string body;
        append_with_request_id(body, deps_.catalog.models_json(), call.request_id);
        call.send_json(200, body);
      }
      return;
    }
    constexpr std::string_view kPrompts = "/v1/prompts/";
    if (path.size() > kPrompts.size() && path.compare(0, kPrompts.size(), kPrompts) == 0 &&
        path.find('/', kPrompts.size()) == std::string::npos) {
      if (method != "GET") {
        response.set("Allow", "GET");
        return call.send_error(method_not_allowed(method, path, "GET"));
      }
      if (auto principal = authenticate(deps_, call, "prompts:read")) {
        get_prompt(deps_, call, *principal, path.substr(kPrompts.size()));
      }
      return;
    }
    if (path == "/internal/v1" || path.rfind("/internal/v1/", 0) == 0) {
      if (auto principal = authenticate(deps_, call, "admin")) deps_.admin.handle(call, *principal, path);
      return;
    }
    if (path == "/healthz") {
      if (method != "GET") {
        response.set("Allow", "GET");
        return call.send_error(method_not_allowed(method, path, "GET"));
      }
      return call.send_json(200, "{\"status\":\"ok\",\"request_id\":\"" + call.request_id + "\"}");
    }
    call.send_error(not_found("not_found", "no endpoint at " + method + " " + path));
  } catch (const std::exception& e) {
    spdlog::error("request {}: unhandled: {}", call.request_id, e.what());
    if (call.status_sent == 0) {
      try {
        call.send_error(internal_error());
      } catch (...) {  // the client is gone; nothing left to tell it
      }
    }
  }
}

}  // namespace modelgw::http
