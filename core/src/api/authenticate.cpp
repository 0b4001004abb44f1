#include "api/authenticate.h"

#include "logging/request_log.h"
#include "plugins/storage_failure.h"

namespace modelgw::api {

net::Task<std::optional<auth::Principal>> authenticate(const AuthDeps& deps, http::ServerCall& call,
                                                       const char* scope, CredentialHeaders where) {
  std::string_view header = call.request().header("Authorization");
  std::string from_api_key;  // `x-api-key: K` read as `Bearer K`
  if (header.empty() && where == CredentialHeaders::bearer_or_api_key) {
    if (const std::string_view key = call.request().header("x-api-key"); !key.empty()) {
      from_api_key.reserve(7 + key.size());
      from_api_key.append("Bearer ").append(key);
      header = from_api_key;
    }
  }
  auto result = deps.authenticator.authenticate_cached(header);
  if (!result) {
    // A key or tenant not in the cache needs storage; when it is down, the
    // client gets a retryable 503 rather than a 500.
    result = co_await net::offload(deps.blocking, [&]() -> decltype(result) {
      try {
        return deps.authenticator.authenticate(header);
      } catch (const std::exception& e) {
        logging::for_request(call.request_id()).error("authentication could not read storage: {}", e.what());
        return plugins::storage_failure_error(e);
      }
    });
  }
  if (auto* err = std::get_if<errors::ApiError>(&*result)) {
    if (deps.audit != nullptr) {
      if (err->status == 401) deps.audit->rejected_credential(call.request().remote_address.to_string());
      if (err->code == "jwks_unavailable") deps.audit->keyset_state(false, call.request_id());
    }
    call.send_error(*err);
    co_return std::nullopt;
  }
  auto& principal = std::get<auth::Principal>(*result);
  call.access_note().tenant = principal.tenant_name;
  if (deps.audit != nullptr && principal.key_id == 0) deps.audit->keyset_state(true, call.request_id());
  if (!principal.has_scope(scope)) {
    call.send_error(errors::ApiError{403,
                                     "permission_denied",
                                     std::string(principal.key_id != 0 ? "this API key" : "this token") +
                                         " lacks the '" + scope + "' scope needed here",
                                     {}});
    co_return std::nullopt;
  }
  auto refused = deps.gate.check_cached(principal);
  if (!refused) {
    refused = co_await net::offload(deps.blocking, [&]() -> decltype(refused) {
      try {
        return deps.gate.check(principal);
      } catch (const std::exception& e) {
        logging::for_request(call.request_id())
            .error("the tenant check could not read storage: {}", e.what());
        return std::optional<errors::ApiError>(plugins::storage_failure_error(e));
      }
    });
  }
  if (*refused) {
    call.send_error(**refused);
    co_return std::nullopt;
  }
  co_return std::move(principal);
}

}  // namespace modelgw::api
