// GET /metrics: the registry in Prometheus' text format. Unauthenticated by
// default (scrapers on a private network); with metrics.bearer_token set,
// only a request bearing that token is answered.
#pragma once

#include "http/server_call.h"
#include "metrics/registry.h"

#include <string>

namespace modelgw::api {

struct MetricsEndpoint {
  const metrics::Registry& registry;
  std::string bearer_token;  // empty: no authentication
};

void send_metrics(http::ServerCall& call, const MetricsEndpoint& endpoint);

}  // namespace modelgw::api
