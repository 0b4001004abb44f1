// GET /v1/audit and /internal/v1/audit: audit events read from the store on
// the blocking pool (audit/audit_query.h).
#include "api/router.h"

#include "audit/audit_query.h"
#include "logging/request_log.h"
#include "plugins/storage_failure.h"

namespace modelgw::api {

net::Task<void> Router::get_audit(http::ServerCall& call, const auth::Principal& principal, bool internal) {
  const std::string query(call.request().query());
  const auto ticket = enter_query(call, principal);
  if (call.answered()) co_return;
  auto answer = co_await net::offload(query_pool(), [&]() -> audit::AuditAnswer {
    audit::AuditAnswer out;
    auto parsed = audit::parse_audit_query(query, internal);
    if (auto* err = std::get_if<errors::ApiError>(&parsed)) {
      out.error = *err;
      return out;
    }
    auto& request = std::get<audit::AuditRequest>(parsed);
    try {
      if (!deps_.storage.supports_audit()) {
        out.error = errors::ApiError{501, "not_implemented", "this gateway's storage keeps no audit log", {}};
        return out;
      }
      request.filter.tenant_id = principal.tenant_id;
      if (internal) {
        // Any tenant's chain; none named: the gateway's own.
        request.filter.tenant_id = 0;
        if (!request.tenant.empty()) {
          auto tenant = deps_.storage.find_tenant(request.tenant);
          if (!tenant) {
            out.error = errors::not_found(
                "not_found", "no tenant named '" + errors::input_excerpt(request.tenant) + "'", "tenant");
            return out;
          }
          request.filter.tenant_id = tenant->id;
        }
      }
      return audit::answer_audit_query(request, deps_.storage);
    } catch (const std::exception& e) {
      logging::for_request(call.request_id()).error("audit query failed: {}", e.what());
      out.error = plugins::storage_failure_error(e);
      return out;
    }
  });
  if (answer.error) {
    call.send_error(*answer.error);
    co_return;
  }
  call.send_object(200, answer.body);
}

}  // namespace modelgw::api
