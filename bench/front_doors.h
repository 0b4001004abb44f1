// Scenario (g) front_doors (issue 27): each front door other than chat on
// the money path at saturation, against nginx relaying the same request path
// to the mock: POST /v1/responses (the native alias, store false) and
// POST /v1/messages (the anthropic alias, sent natively). Closed loop as (a).
// See README.md, "(g) front_doors".
#pragma once

#include "environment.h"
#include "nginx_proxy.h"
#include "scenarios.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace bench {

// Two passes per door, nginx then modelgw (the money tenant's key and
// X-Feature); the conversation is (a)'s body's. `nginx` may be null (the
// ratios are then n/a). Writes the summary to `summary`; returns the figures
// as JSON.
nlohmann::json run_front_doors(const ScenarioSettings& s, const Environment& env, const NginxProxy* nginx,
                               const std::string& chat_body, const ScenarioHooks& hooks,
                               std::ostream& summary);

}  // namespace bench
