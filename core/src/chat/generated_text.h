// How many bytes of generated text a chat.completion.chunk carries (content,
// refusal, reasoning, tool-call arguments), a Responses API event (its
// string `delta`), or an Anthropic Messages content_block_delta (its text,
// thinking or partial_json), read without parsing the chunk:
// the stream relay counts them so a stream the client abandons still gets a
// usage estimate (about 4 bytes per token).
#pragma once

#include <cstddef>
#include <string_view>

namespace modelgw::chat {

std::size_t generated_text_bytes(std::string_view chunk_json);

}  // namespace modelgw::chat
