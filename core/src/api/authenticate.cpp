#include "api/authenticate.h"

namespace modelgw::api {

net::Task<std::optional<auth::Principal>> authenticate(const AuthDeps& deps, http::ServerCall& call,
                                                       const char* scope) {
  const std::string_view header = call.request().header("Authorization");
  auto result = deps.authenticator.authenticate_cached(header);
  if (!result) {
    result = co_await net::offload(deps.blocking, [&] { return deps.authenticator.authenticate(header); });
  }
  if (auto* err = std::get_if<http::ApiError>(&*result)) {
    if (deps.audit != nullptr) {
      if (err->status == 401) deps.audit->rejected_credential(call.request().remote_address.to_string());
      if (err->code == "jwks_unavailable") deps.audit->keyset_state(false, call.request_id());
    }
    call.send_error(*err);
    co_return std::nullopt;
  }
  auto& principal = std::get<auth::Principal>(*result);
  if (deps.audit != nullptr && principal.key_id == 0) deps.audit->keyset_state(true, call.request_id());
  if (!principal.has_scope(scope)) {
    call.send_error(http::ApiError{403,
                                   "permission_denied",
                                   std::string(principal.key_id != 0 ? "this API key" : "this token") +
                                       " lacks the '" + scope + "' scope needed here",
                                   {}});
    co_return std::nullopt;
  }
  auto refused = deps.gate.check_cached(principal);
  if (!refused) refused = co_await net::offload(deps.blocking, [&] { return deps.gate.check(principal); });
  if (*refused) {
    call.send_error(**refused);
    co_return std::nullopt;
  }
  co_return std::move(principal);
}

}  // namespace modelgw::api
