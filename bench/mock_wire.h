// The bench mock upstream's wire format, without I/O: the request head it
// needs (method, path, length, key), what a chat or Responses request asks
// for, and the bytes of an OpenAI chat completion answer or stream event, of
// a Responses API response object or typed stream event, or of an Anthropic
// message (the embeddings answer is mock_embeddings.h's).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bench::mock {

struct RequestHead {
  std::string method;
  std::string path;
  std::size_t content_length = 0;
  bool close = false;   // "Connection: close" or HTTP/1.0
  std::string bearer;   // the Authorization bearer token, if any
  std::string api_key;  // the x-api-key header (how Anthropic's clients send the key), if any
};

// Parses a complete head (up to and including the blank line). nullopt when
// it is not a request the mock understands (then it answers 400 and closes).
std::optional<RequestHead> parse_request_head(std::string_view head);

// What a chat completion request asks for. The model may carry the same
// directives as fake_upstream's: "name+chunk_delay_ms=D+words=W".
struct ChatAsk {
  bool stream = false;
  std::string model;  // as written in the body (JSON-escaped bytes, without quotes)
  int words = -1;     // content chunks of a stream; -1: the mock's default
  int delay_ms = 0;   // before every stream event but the first
};
ChatAsk read_chat(std::string_view body);

// A complete non-streamed response (head and JSON body with usage) whose
// message content is `content_bytes` long.
std::string json_response(const ChatAsk& ask, std::size_t content_bytes, std::size_t prompt_bytes);

// A complete response with a small JSON error body.
std::string error_response(int status, std::string_view reason, std::string_view message, bool close);

// The head of a streamed response (chunked, text/event-stream); with
// "Connection: close" when `close`.
std::string stream_head(bool close = false);

// One SSE event as one HTTP chunk: "<hex>\r\ndata: <payload>\n\n\r\n".
std::string chunk_event(std::string_view payload);

// The payloads of a stream's events, in order: word i, the finish chunk, the
// usage chunk, and "[DONE]" (index words + 2). `count(words)` of them.
std::size_t event_count(int words);
std::string event_payload(const ChatAsk& ask, int words, std::size_t index, std::size_t prompt_bytes);

// The Responses API (POST /v1/responses), as a native provider of the
// gateway sends it: read_chat reads its "model" and "stream" as well.
//
// Why the mock refuses the request (400), or empty: the gateway's native path
// always sends "store": false and never a previous_response_id.
std::string_view responses_refusal(std::string_view body);

// A complete non-streamed response: a "response" object whose one message
// item holds `content_bytes` of output_text, with usage (tokens as chat's).
std::string responses_json_response(const ChatAsk& ask, std::size_t content_bytes, std::size_t prompt_bytes);

// The groups of typed events of a stream, each one HTTP chunk of one or more
// `event: <type>\ndata: {"type":"<type>",...,"sequence_number":n}\n\n`, sent one delay
// apart like chat's events: group i < words is output_text.delta i ("tok<i>",
// the first group led by response.created, response.in_progress,
// response.output_item.added and response.content_part.added); group words
// holds output_text.done, content_part.done and output_item.done; the last,
// response.completed with usage. `responses_group_count(words)` of them.
std::size_t responses_group_count(int words);
std::string responses_group(const ChatAsk& ask, int words, std::size_t index, std::size_t prompt_bytes);

// Anthropic's Messages API (POST /v1/messages), as the gateway's anthropic
// provider sends it natively: read_chat reads its "model" and "stream".
//
// Why the mock refuses the request (400), or empty: it does not stream
// messages (the bench only measures the non-streamed answer).
std::string_view messages_refusal(std::string_view body);

// A complete non-streamed response: a "message" whose one text block is the
// chat answer's `content_bytes` of text, stop_reason end_turn, and usage
// (input_tokens and output_tokens as chat's prompt and completion tokens).
std::string messages_json_response(const ChatAsk& ask, std::size_t content_bytes, std::size_t prompt_bytes);

// The end of the chunked body.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace bench::mock
