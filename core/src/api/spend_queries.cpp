// GET /v1/usage and GET /v1/budgets: the caller's tenant's records and
// standing, read from the store on the blocking pool.
#include "api/router.h"

#include "budget/budget_report.h"
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

net::Task<void> Router::get_usage(http::ServerCall& call, const auth::Principal& principal) {
  const std::string query(call.request().query());
  const auto ticket = enter_query(call, principal);
  if (call.answered()) co_return;
  auto answer = co_await net::offload(query_pool(), [&]() -> usage::UsageAnswer {
    try {
      usage::StorageUsageStore store(deps_.storage);
      return usage::answer_usage_query(query, principal.tenant_id, store, now_ms());
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
