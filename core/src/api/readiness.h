// GET /readyz: whether this instance should receive traffic. Not ready (503)
// while usage cannot be recorded, since chat requests are refused then; the
// body says how recording stands either way (queue depth, journal size), for
// the operator and the load balancer; the audit writer's standing too (it
// does not decide readiness). No authentication, no secrets.
#pragma once

#include "audit/audit_log.h"
#include "http/server_call.h"
#include "usage/usage_writer.h"

namespace modelgw::api {

// `audit`: the audit writer's standing; nullptr when no audit log is kept.
void send_readiness(http::ServerCall& call, const usage::WriterStatus& usage, bool recording,
                    const audit::AuditLog::Status* audit);

}  // namespace modelgw::api
