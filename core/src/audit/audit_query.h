// GET /v1/audit: the caller's tenant's audit events, newest first, filtered
// by from, to, action and actor and paged by an opaque cursor (the same rules
// as GET /v1/usage: strict parameters, a cursor bound to its filter).
// /internal/v1/audit reads any tenant's chain (`tenant=`; none: the
// gateway's own). Runs on the blocking pool: it reads storage.
#pragma once

#include "errors/api_error.h"
#include "plugins/storage.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace modelgw::audit {

struct AuditRequest {
  plugins::AuditFilter filter;
  std::string tenant;  // internal only: the `tenant` parameter ("" when absent)
  std::string cursor;  // the `cursor` parameter; checked against the filter once the tenant is set
};

// `internal`: the `tenant` parameter is allowed (the caller resolves it).
std::variant<AuditRequest, errors::ApiError> parse_audit_query(std::string_view query, bool internal);

struct AuditAnswer {
  std::string body;  // JSON without request_id
  std::optional<errors::ApiError> error;
};

// Answers a parsed request whose filter names the tenant to read.
AuditAnswer answer_audit_query(const AuditRequest& request, plugins::Storage& storage);

}  // namespace modelgw::audit
