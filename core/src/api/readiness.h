// GET /readyz: whether this instance should receive traffic. Not ready (503)
// while usage cannot be recorded (chat requests are refused then), while
// storage cannot be reached, while the JWT keyset cannot be had (when JWTs
// are on), or while draining for shutdown. The body names each check and
// which failed, and how recording stands (queue depth, journal size), for
// the operator and the load balancer; the audit writer's standing too (it
// does not decide readiness). No authentication, no secrets.
#pragma once

#include "api/readiness_probe.h"
#include "audit/audit_log.h"
#include "http/server_call.h"
#include "usage/usage_writer.h"

namespace modelgw::api {

// `audit`: the audit writer's standing; nullptr when no audit log is kept.
void send_readiness(http::ServerCall& call, const usage::WriterStatus& usage, bool recording,
                    const audit::AuditLog::Status* audit, const ReadinessState& checks);

}  // namespace modelgw::api
