// Maps each request to its endpoint (README's table): authenticates /v1/* and
// /internal/v1/* calls with the scope each needs, answers unknown paths (404)
// and wrong methods (405, with Allow) in the error envelope. The transport
// (http/) knows nothing of endpoints; this is where it hands a request over.
#pragma once

#include "admin/admin_routes.h"
#include "api/authenticate.h"
#include "api/metrics_endpoint.h"
#include "api/query_lane.h"
#include "api/readiness_probe.h"
#include "catalog/catalog.h"
#include "chat/chat_endpoint.h"
#include "chat/route_set.h"
#include "console/console_site.h"
#include "embeddings/embeddings_door.h"
#include "http/server_call.h"
#include "messages/count_tokens_door.h"
#include "messages/messages_door.h"
#include "prompts/prompt_store.h"
#include "responses/responses_door.h"

namespace modelgw::api {

struct RouterDeps {
  AuthDeps auth;
  // The chat endpoint and catalog of the current configuration (a reload
  // replaces them); each request takes them once and keeps them to its end.
  const chat::RouteHolder& routes;
  prompts::PromptStore& prompts;
  admin::AdminRoutes& admin;
  plugins::Storage& storage;                 // GET /v1/usage and /v1/budgets read it (off the loop)
  const usage::UsageWriter& usage;           // GET /readyz reports how recording stands
  const audit::AuditLog* audit = nullptr;    // and the audit writer's (nullptr: no audit log)
  ReadinessProbe* readiness = nullptr;       // GET /readyz's other checks (nullptr: none)
  const MetricsEndpoint* metrics = nullptr;  // GET /metrics (nullptr: metrics.enabled is false, 404)
  QueryLane* queries = nullptr;  // where usage, budget and audit reads run (nullptr: auth.blocking)
  // Kept responses of POST /v1/responses (nullptr: the storage plugin keeps none).
  responses::ResponseStore* responses = nullptr;
  const console::ConsoleSite* console = nullptr;  // the web console (nullptr: console.enabled is false)
};

class Router : public http::Handler {
 public:
  explicit Router(RouterDeps deps) : deps_(deps), responses_door_(deps.responses) {}

  net::Task<void> handle(http::ServerCall& call) override;

 private:
  net::Task<void> serve_chain(http::ServerCall& call, const chat::FrontDoor* door);
  net::Task<void> serve_messages(http::ServerCall& call, const chat::FrontDoor* door);
  net::Task<void> serve_other(http::ServerCall& call);
  net::Task<void> get_prompt(http::ServerCall& call, const auth::Principal& principal, std::string encoded);
  net::Task<void> admin(http::ServerCall& call, const auth::Principal& principal);
  // spend_queries.cpp: GET /v1/usage (the caller's tenant), GET
  // /internal/v1/usage (any tenant's, named by `tenant`) and GET /v1/budgets.
  net::Task<void> get_usage(http::ServerCall& call, const auth::Principal& principal, bool internal);
  net::Task<void> get_budgets(http::ServerCall& call, const auth::Principal& principal);
  // A place in the query lane for the tenant, or an empty ticket and the
  // call answered 429.
  QueryLane::Ticket enter_query(http::ServerCall& call, const auth::Principal& principal);
  net::BlockingPool& query_pool() {
    return deps_.queries != nullptr ? deps_.queries->pool() : deps_.auth.blocking;
  }
  // response_queries.cpp: GET or DELETE /v1/responses/{id}, and
  // GET /v1/responses/{id}/input_items when `input_items`.
  net::Task<void> stored_response(http::ServerCall& call, const auth::Principal& principal, std::string id,
                                  bool input_items);
  // GET /v1/audit (the caller's tenant) and /internal/v1/audit (any tenant's).
  net::Task<void> get_audit(http::ServerCall& call, const auth::Principal& principal, bool internal);
  // audit_verification.cpp: GET /internal/v1/audit/verify, what `modelgw
  // audit verify` reports, for the console.
  net::Task<void> verify_audit(http::ServerCall& call, const auth::Principal& principal);

  RouterDeps deps_;
  const responses::ResponsesDoor responses_door_;     // POST /v1/responses
  const embeddings::EmbeddingsDoor embeddings_door_;  // POST /v1/embeddings
  const messages::MessagesDoor messages_door_;        // POST /v1/messages
  const messages::CountTokensDoor count_door_;        // POST /v1/messages/count_tokens
};

}  // namespace modelgw::api
