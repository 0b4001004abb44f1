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

net::Task<void> Router::get_usage(http::ServerCall& call, const auth::Principal& principal) {
  const std::string query(call.request().query());
  auto answer = co_await net::offload(deps_.auth.blocking, [&]() -> usage::UsageAnswer {
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
  auto body = co_await net::offload(deps_.auth.blocking, [&]() -> std::variant<std::string, http::ApiError> {
    try {
      return budget::budgets_report(deps_.storage, principal.tenant_id, now_ms()).dump();
    } catch (const std::exception& e) {
      logging::for_request(call.request_id()).error("budgets query failed: {}", e.what());
      return plugins::storage_failure_error(e);
    }
  });
  if (auto* error = std::get_if<http::ApiError>(&body)) {
    call.send_error(*error);
    co_return;
  }
  call.send_object(200, std::get<std::string>(body));
}

}  // namespace modelgw::api
