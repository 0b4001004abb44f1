// GET /v1/usage and GET /v1/budgets: the caller's tenant's records and
// standing, read from the store on the blocking pool.
#include "api/router.h"

#include "budget/budget_report.h"
#include "http/query_parameters.h"
#include "logging/request_log.h"
#include "plugins/storage_failure.h"
#include "usage/usage_query.h"

#include <chrono>
#include <variant>

namespace modelgw::api {
namespace {

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// /internal/v1/usage: the `tenant` parameter (required) taken out of the
// query, which the usage query then reads as /v1/usage's. Fails with the
// envelope's 400 when it is missing or the string is malformed.
struct TenantQuery {
  std::string tenant;
  std::string rest;
};
std::variant<TenantQuery, errors::ApiError> take_tenant_parameter(std::string_view query) {
  auto parsed = http::strict_query_parameters(query);
  if (auto* err = std::get_if<errors::ApiError>(&parsed)) return *err;
  TenantQuery out;
  for (const auto& [name, value] : std::get<http::QueryParameters>(parsed)) {
    if (name == "tenant") out.tenant = value;
  }
  if (out.tenant.empty()) {
    return errors::bad_request("missing_required_field",
                               "'tenant' is required: the tenant whose usage to read", "tenant");
  }
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.substr(0, 7) == "tenant=" || piece == "tenant") continue;
    if (!out.rest.empty()) out.rest += '&';
    out.rest += piece;
  }
  return out;
}

}  // namespace

QueryLane::Ticket Router::enter_query(http::ServerCall& call, const auth::Principal& principal) {
  if (deps_.queries == nullptr) return QueryLane::Ticket(nullptr, 0);
  auto ticket = deps_.queries->enter(principal.tenant_id);
  if (!ticket) {
    errors::ApiError busy{
        429,
        "rate_limit_exceeded",
        "this tenant already has " + std::to_string(deps_.queries->per_tenant()) +
            " usage, budget or audit queries running (server.max_queries_per_tenant); retry "
            "in 1 seconds, when one has finished",
        {}};
    busy.retry_after_s = 1;
    busy.retryable = true;
    call.send_error(busy);
  }
  return ticket;
}

net::Task<void> Router::get_usage(http::ServerCall& call, const auth::Principal& principal, bool internal) {
  const std::string query(call.request().query());
  const auto ticket = enter_query(call, principal);
  if (call.answered()) co_return;
  auto answer = co_await net::offload(query_pool(), [&]() -> usage::UsageAnswer {
    try {
      usage::StorageUsageStore store(deps_.storage);
      if (!internal) return usage::answer_usage_query(query, principal.tenant_id, store, now_ms());
      usage::UsageAnswer out;
      auto taken = take_tenant_parameter(query);
      if (auto* err = std::get_if<errors::ApiError>(&taken)) {
        out.error = *err;
        return out;
      }
      const auto& [name, rest] = std::get<TenantQuery>(taken);
      auto tenant = deps_.storage.find_tenant(name);
      if (!tenant) {
        out.error =
            errors::not_found("not_found", "no tenant named '" + errors::input_excerpt(name) + "'", "tenant");
        return out;
      }
      return usage::answer_usage_query(rest, tenant->id, store, now_ms());
    } catch (const std::exception& e) {
      logging::for_request(call.request_id()).error("usage query failed: {}", e.what());
      usage::UsageAnswer failed;
      failed.error = plugins::storage_failure_error(e);
      return failed;
    }
  });
  if (answer.error) {
    call.send_error(*answer.error);
    co_return;
  }
  call.send_object(200, answer.body);
}

net::Task<void> Router::get_budgets(http::ServerCall& call, const auth::Principal& principal) {
  const auto ticket = enter_query(call, principal);
  if (call.answered()) co_return;
  auto body = co_await net::offload(query_pool(), [&]() -> std::variant<std::string, errors::ApiError> {
    try {
      return budget::budgets_report(deps_.storage, principal.tenant_id, now_ms()).dump();
    } catch (const std::exception& e) {
      logging::for_request(call.request_id()).error("budgets query failed: {}", e.what());
      return plugins::storage_failure_error(e);
    }
  });
  if (auto* error = std::get_if<errors::ApiError>(&body)) {
    call.send_error(*error);
    co_return;
  }
  call.send_object(200, std::get<std::string>(body));
}

}  // namespace modelgw::api
