// The fast path of map_response: a well-formed chat.completion is relayed as
// the vendor wrote it, with only its "model" value replaced by the alias.
// Parsing the answer into a DOM and serialising it again cost about a tenth
// of the gateway's CPU per request; one validating scan (json_scan.hpp) finds
// the members the mapping needs instead.
#pragma once

#include <modelgw/plugin.h>

#include <optional>
#include <string>
#include <string_view>

namespace mgw::openai {

struct SplicedAnswer {
  std::string body;
  mgw_usage usage;
};

// Which answer: a chat.completion (a "choices" array, no "error"; usage in
// prompt_tokens, completion_tokens, prompt_tokens_details.cached_tokens) or a
// Responses API response ("object": "response" whose "status" is not
// "failed"; usage in input_tokens, output_tokens,
// input_tokens_details.cached_tokens).
enum class AnswerShape { chat_completion, response };

// The answer for `body` with "model" set to `alias_json` (a JSON string), and
// its usage; nullopt whenever anything is out of the ordinary (not a valid
// JSON object, an escaped or repeated member name among those read, what the
// shape needs missing or different, no "model", a "request_id" to drop, no
// "usage" object or a count that is not a plain integer): the DOM path then
// gives the answer, so both paths agree on every body.
std::optional<SplicedAnswer> splice_answer(std::string_view body, std::string_view alias_json,
                                           AnswerShape shape = AnswerShape::chat_completion);

}  // namespace mgw::openai
