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
#include "http/call.h"

namespace modelgw::admin {

class AdminRoutes {
 public:
  AdminRoutes(AdminService& service, std::size_t max_body_bytes)
      : service_(service), max_body_bytes_(max_body_bytes) {}

  // `path` is the URI's path (percent-encoded, without the query).
  void handle(http::Call& call, const auth::Principal& principal, const std::string& path);

 private:
  AdminService& service_;
  std::size_t max_body_bytes_;
};

}  // namespace modelgw::admin
