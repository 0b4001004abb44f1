#include "http/router.h"

#include "http/call.h"
#include "http/request_id.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequestImpl.h>

#include <spdlog/spdlog.h>

namespace modelgw::http {
namespace {

class RoutedHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit RoutedHandler(Router& router) : router_(router) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    router_.dispatch(request, response);
  }

 private:
  Router& router_;
};

struct InFlight {
  std::atomic<int>& n;
  explicit InFlight(std::atomic<int>& counter) : n(counter) { ++n; }
  ~InFlight() { --n; }
};

ApiError method_not_allowed(const std::string& method, const std::string& path, const char* allowed) {
  return ApiError{405, "method_not_allowed", method + " is not allowed on " + path + "; use " + allowed, {}};
}

std::optional<auth::Principal> authenticate(auth::Authenticator& authenticator, Call& call,
                                            const char* scope) {
  auto result = authenticator.authenticate(call.request.get("Authorization", ""));
  if (auto* err = std::get_if<ApiError>(&result)) {
    call.send_error(*err);
    return std::nullopt;
  }
  auto& principal = std::get<auth::Principal>(result);
  if (!principal.has_scope(scope)) {
    call.send_error(ApiError{403,
                             "permission_denied",
                             std::string("this API key lacks the '") + scope + "' scope needed here",
                             {}});
    return std::nullopt;
  }
  return std::move(principal);
}

}  // namespace

Poco::Net::HTTPRequestHandler* Router::createRequestHandler(const Poco::Net::HTTPServerRequest& /*request*/) {
  return new RoutedHandler(*this);
}

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
      if (auto principal = authenticate(deps_.authenticator, call, "chat"))
        deps_.chat.handle(call, *principal);
      return;
    }
    if (path == "/v1/models") {
      if (method != "GET") {
        response.set("Allow", "GET");
        return call.send_error(method_not_allowed(method, path, "GET"));
      }
      if (authenticate(deps_.authenticator, call, "chat")) {
        std::string body;
        append_with_request_id(body, deps_.catalog.models_json(), call.request_id);
        call.send_json(200, body);
      }
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
