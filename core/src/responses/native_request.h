// POST /v1/responses for a provider that serves the Responses API natively
// (plugin.h, "Native operations"): the client's own body, made whole. The
// gateway keeps conversation state, so the vendor is told none of it: the
// conversation a previous_response_id continues is written out as input
// items, `store` is false, and OpenAI's hosted tools are left out as they are
// for every other provider.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace modelgw::responses {

// `body`: the client's request, already checked by translate_request.
// `history`: the input items of the conversation it continues (empty: none).
nlohmann::json native_request(nlohmann::json body, nlohmann::json history);

// native_request(body, none) as text, from `text` (what `body` was parsed
// from): the body as sent with `store` false, when it continues no
// conversation and names no hosted tool (nothing else to change); empty
// otherwise, or when the member cannot be set by splicing.
std::string native_request_text(std::string_view text, const nlohmann::json& body);

// Appends one kept turn to `items` as a native request's input: its input
// (the chat messages it was sent as) and its response's output items. An
// item's own id is left out (the vendor kept nothing, so it knows none);
// reasoning goes back only with its encrypted_content, which is what a vendor
// that keeps nothing can read.
void append_turn_items(nlohmann::json& items, const nlohmann::json& chat_input,
                       const nlohmann::json& response_object);

}  // namespace modelgw::responses
