// The internal admin surface, /internal/v1/* (not part of the public
// contract; same error envelope). Maps each path and method to an
// AdminService operation; the router has already checked the `admin` scope.
//
//   GET   /internal/v1/tenants                     POST  /internal/v1/tenants {"name"}
//   GET   /internal/v1/tenants/{t}                 PATCH /internal/v1/tenants/{t}/settings {...}
//   GET   /internal/v1/tenants/{t}/keys            POST  /internal/v1/tenants/{t}/keys {"scopes"}
//   GET   /internal/v1/keys                        POST  /internal/v1/keys/{id}/revoke | /rotate
//   GET   /internal/v1/tenants/{t}/prompts         GET   /internal/v1/tenants/{t}/prompts/{name}
//   POST  /internal/v1/tenants/{t}/prompts/{name}/versions {"template","model","parameters","activate"}
//   POST  /internal/v1/tenants/{t}/prompts/{name}/versions/{n}/activate
#pragma once

#include "admin/admin_service.h"
#include "auth/principal.h"
#include "errors/api_error.h"

#include <string>
#include <string_view>

namespace modelgw::admin {

// An admin request as the transport read it, and the answer to send: the
// operations block on storage, so the engine runs answer() off its loops.
struct AdminRequest {
  std::string_view method;
  std::string_view path;  // percent-encoded, without the query
  std::string_view body;
  bool body_too_large = false;
  std::string_view request_id;
};
struct AdminReply {
  int status = 200;
  std::string body;        // JSON with request_id first, when status < 400
  errors::ApiError error;  // when status >= 400
  std::string allow;       // the Allow header of a 405
};

class AdminRoutes {
 public:
  AdminRoutes(AdminService& service, std::size_t max_body_bytes)
      : service_(service), max_body_bytes_(max_body_bytes) {}

  // Blocks on storage: the engine runs it on the blocking pool.
  AdminReply answer(const AdminRequest& request, const auth::Principal& principal);

 private:
  AdminService& service_;
  std::size_t max_body_bytes_;
};

}  // namespace modelgw::admin
