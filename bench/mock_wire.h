// The bench mock upstream's wire format, without I/O: the request head it
// needs (method, path, length, key), what a chat request asks for, and the
// bytes of an OpenAI chat completion answer or stream event.
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
  bool close = false;  // "Connection: close" or HTTP/1.0
  std::string bearer;  // the Authorization bearer token, if any
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

// The head of a streamed response (chunked, text/event-stream).
std::string stream_head();

// One SSE event as one HTTP chunk: "<hex>\r\ndata: <payload>\n\n\r\n".
std::string chunk_event(std::string_view payload);

// The payloads of a stream's events, in order: word i, the finish chunk, the
// usage chunk, and "[DONE]" (index words + 2). `count(words)` of them.
std::size_t event_count(int words);
std::string event_payload(const ChatAsk& ask, int words, std::size_t index, std::size_t prompt_bytes);

// The end of the chunked body.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace bench::mock
