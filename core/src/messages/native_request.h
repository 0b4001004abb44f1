// POST /v1/messages for a provider that serves Anthropic's Messages API
// natively (plugin.h, "Native operations"): the client's own body, after the
// checks of messages_request.h, as it was sent. Nothing is normalised: the
// host writes model and max_tokens itself, and what the chat translation
// drops (thinking blocks and their signatures, cache_control, citations)
// reaches the vendor that reads it. A JSON document, which the PII stage
// masks in place.
#pragma once

#include <nlohmann/json.hpp>

namespace modelgw::messages {

nlohmann::json native_request(nlohmann::json body);

}  // namespace modelgw::messages
