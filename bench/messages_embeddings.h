// Scenario (f) messages_embeddings (issue 26): what Anthropic's Messages API
// costs modelgw over the same conversation as chat, and what relaying a large
// embeddings answer costs it over an nginx hop relaying the same bytes. Both
// at saturation, closed loop as (a). See README.md, "(f) messages_embeddings".
#pragma once

#include "environment.h"
#include "nginx_proxy.h"
#include "scenarios.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace bench {

// Pass 1: modelgw's CPU per request for (a)'s 1 KiB conversation (with
// max_tokens) as POST /v1/chat/completions on the plain alias and as
// POST /v1/messages on the anthropic alias (sent natively to the mock).
// Pass 2: the CPU per request of nginx relaying POST /v1/embeddings to the
// mock and of modelgw serving it on the embedding alias, 100 inputs answered
// by 100 vectors of 1,536 floats. `nginx` may be null (its figures are then
// n/a). Writes the summary to `summary`; returns the figures as JSON.
nlohmann::json run_messages_embeddings(const ScenarioSettings& s, const Environment& env,
                                       const NginxProxy* nginx, const std::string& chat_body,
                                       const ScenarioHooks& hooks, std::ostream& summary);

}  // namespace bench
