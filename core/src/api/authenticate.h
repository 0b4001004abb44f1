// The authenticate stage of every /v1 and /internal/v1 call: the bearer
// credential (API key or JWT), the scope the endpoint needs, and the tenant's
// gate (a disabled tenant is refused). Cached answers are given on the event
// loop; a cache miss (storage, the identity provider's keyset) runs on the
// blocking pool.
#pragma once

#include "audit/audit_log.h"
#include "auth/authenticator.h"
#include "auth/principal.h"
#include "http/server_call.h"
#include "net/blocking_pool.h"
#include "tenants/tenant_gate.h"

#include <optional>

namespace modelgw::api {

struct AuthDeps {
  auth::Authenticator& authenticator;
  tenants::TenantGate& gate;
  net::BlockingPool& blocking;
  // Rejected credentials and keyset outages are recorded here; may be null.
  audit::AuditLog* audit = nullptr;
};

// Where the credential may be sent. Anthropic's API and its SDK send the key
// in `x-api-key` (and a token in `Authorization: Bearer`): on the doors of that
// API either header works, `Authorization` first when both are sent.
enum class CredentialHeaders { bearer, bearer_or_api_key };

// The caller's principal, or nullopt when the call was answered (401, 403, 503).
net::Task<std::optional<auth::Principal>> authenticate(const AuthDeps& deps, http::ServerCall& call,
                                                       const char* scope,
                                                       CredentialHeaders where = CredentialHeaders::bearer);

}  // namespace modelgw::api
