// GET /readyz: whether this instance should receive traffic. Not ready (503)
// while usage cannot be recorded, since chat requests are refused then; the
// body says how recording stands either way (queue depth, journal size), for
// the operator and the load balancer. No authentication, no secrets.
#pragma once

#include "http/server_call.h"
#include "usage/usage_writer.h"

namespace modelgw::api {

void send_readiness(http::ServerCall& call, const usage::WriterStatus& usage, bool recording);

}  // namespace modelgw::api
