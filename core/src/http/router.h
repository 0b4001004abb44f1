// Maps each HTTP call to its endpoint: gives it a request_id, authenticates
// /v1/* and /internal/v1/* calls and checks the scope each needs (README), answers unknown paths (404) and
// wrong methods (405) in the error envelope, and turns any escaped exception into a 500 envelope.
#pragma once

#include "admin/admin_routes.h"
#include "admin/tenant_gate.h"
#include "auth/authenticator.h"
#include "catalog/catalog.h"
#include "chat/chat_service.h"
#include "prompts/prompt_store.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <atomic>

namespace modelgw::http {

struct RouterDeps {
  auth::Authenticator& authenticator;
  chat::ChatService& chat;
  const catalog::Catalog& catalog;
  std::size_t max_body_bytes;  // also how much of an unread body is drained
  admin::TenantGate& gate;
  prompts::PromptStore& prompts;
  admin::AdminRoutes& admin;
};

class Router {
 public:
  explicit Router(RouterDeps deps) : deps_(deps) {}

  // Calls being handled right now; shutdown waits for this to reach zero.
  int in_flight() const { return in_flight_.load(); }

  // Answers one request (http/server.cpp calls it for each request read).
  void dispatch(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

 private:
  RouterDeps deps_;
  std::atomic<int> in_flight_{0};
};

}  // namespace modelgw::http
