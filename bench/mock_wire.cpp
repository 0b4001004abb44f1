#include "mock_wire.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace bench::mock {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The value after `"name"` and a colon in a flat scan of the body; the mock
// only needs "model" and "stream", which a chat request has at the top level
// (a nested member of the same name could only come earlier in a message
// content string, which the bench never sends).
std::string_view member_value(std::string_view body, std::string_view quoted_name) {
  const auto at = body.find(quoted_name);
  if (at == std::string_view::npos) return {};
  std::size_t i = at + quoted_name.size();
  while (i < body.size() && (body[i] == ' ' || body[i] == ':' || body[i] == '\n' || body[i] == '\t')) ++i;
  return body.substr(i);
}

int directive(std::string_view model, std::string_view name, int fallback) {
  const auto at = model.find(name);
  if (at == std::string_view::npos) return fallback;
  const char* begin = model.data() + at + name.size();
  int v = fallback;
  std::from_chars(begin, model.data() + model.size(), v);
  return v;
}

const char* status_text(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    default:
      return "Error";
  }
}

std::string content_text(std::size_t bytes) {
  static constexpr std::string_view kWords = "The mock upstream answers with these words again and again. ";
  std::string s;
  s.reserve(bytes);
  while (s.size() < bytes) s += kWords[s.size() % kWords.size()];
  return s;
}

std::string usage_json(std::size_t prompt_bytes, std::size_t completion_tokens) {
  const std::size_t prompt = std::max<std::size_t>(1, prompt_bytes / 4);
  return R"({"prompt_tokens":)" + std::to_string(prompt) + R"(,"completion_tokens":)" +
         std::to_string(completion_tokens) + R"(,"total_tokens":)" +
         std::to_string(prompt + completion_tokens) + "}";
}

std::string responses_usage_json(std::size_t prompt_bytes, std::size_t output_tokens) {
  const std::size_t input = std::max<std::size_t>(1, prompt_bytes / 4);
  return R"({"input_tokens":)" + std::to_string(input) +
         R"(,"input_tokens_details":{"cached_tokens":0},"output_tokens":)" + std::to_string(output_tokens) +
         R"(,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":)" +
         std::to_string(input + output_tokens) + "}";
}

// "<hex>\r\n<payload>\r\n": one HTTP chunk.
std::string http_chunk(std::string_view payload) {
  char hex[32];
  const int n = std::snprintf(hex, sizeof hex, "%zx\r\n", payload.size());
  std::string out;
  out.reserve(static_cast<std::size_t>(n) + payload.size() + 2);
  out.append(hex, static_cast<std::size_t>(n)).append(payload).append("\r\n");
  return out;
}

constexpr std::string_view kMessageId = "msg_mock";

// The message item, its content empty while in progress.
std::string message_item(std::string_view status, std::string_view text) {
  std::string content = "[]";
  if (status == "completed")
    content =
        R"([{"type":"output_text","annotations":[],"logprobs":[],"text":")" + std::string(text) + R"("}])";
  return R"({"id":")" + std::string(kMessageId) + R"(","type":"message","status":")" + std::string(status) +
         R"(","content":)" + content + R"(,"role":"assistant"})";
}

// A "response" object; `output` and `usage` are JSON ("[]", "null", ...).
std::string response_object(const ChatAsk& ask, std::string_view status, std::string_view output,
                            std::string_view usage) {
  return R"({"id":"resp_mock","object":"response","created_at":1700000000,"status":")" + std::string(status) +
         R"(","error":null,"incomplete_details":null,"model":")" + ask.model + R"(","output":)" +
         std::string(output) +
         R"(,"parallel_tool_calls":true,"previous_response_id":null,"store":false,"usage":)" +
         std::string(usage) + "}";
}

// One typed event: `fields` are the members besides type and sequence_number
// ("" for none, else starting with a comma).
void append_event(std::string& out, std::string_view type, std::string_view fields, std::size_t sequence) {
  out.append("event: ").append(type).append("\ndata: {\"type\":\"").append(type).append("\"").append(fields);
  out.append(",\"sequence_number\":").append(std::to_string(sequence)).append("}\n\n");
}

std::string stream_text(std::size_t words) {
  std::string s;
  for (std::size_t i = 0; i < words; ++i) s += (i ? " tok" : "tok") + std::to_string(i);
  return s;
}

}  // namespace

std::optional<RequestHead> parse_request_head(std::string_view head) {
  RequestHead h;
  const auto line_end = head.find("\r\n");
  if (line_end == std::string_view::npos) return std::nullopt;
  const std::string_view line = head.substr(0, line_end);
  const auto sp1 = line.find(' ');
  const auto sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1) return std::nullopt;
  h.method = std::string(line.substr(0, sp1));
  h.path = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  const std::string_view version = line.substr(sp2 + 1);
  if (version == "HTTP/1.0") {
    h.close = true;
  } else if (version != "HTTP/1.1") {
    return std::nullopt;
  }
  std::size_t pos = line_end + 2;
  while (pos < head.size()) {
    const auto end = head.find("\r\n", pos);
    if (end == std::string_view::npos || end == pos) break;
    const std::string_view field = head.substr(pos, end - pos);
    pos = end + 2;
    const auto colon = field.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = trim(field.substr(colon + 1));
    if (iequals(name, "content-length")) {
      if (std::from_chars(value.data(), value.data() + value.size(), h.content_length).ec != std::errc())
        return std::nullopt;
    } else if (iequals(name, "transfer-encoding")) {
      return std::nullopt;  // no client of the mock sends chunked bodies
    } else if (iequals(name, "connection")) {
      h.close = iequals(value, "close");
    } else if (iequals(name, "authorization") && value.size() > 7 && iequals(value.substr(0, 7), "bearer ")) {
      h.bearer = std::string(trim(value.substr(7)));
    } else if (iequals(name, "x-api-key")) {
      h.api_key = std::string(value);
    }
  }
  return h;
}

ChatAsk read_chat(std::string_view body) {
  ChatAsk ask;
  const std::string_view stream = member_value(body, "\"stream\"");
  ask.stream = stream.substr(0, 4) == "true";
  std::string_view model = member_value(body, "\"model\"");
  if (!model.empty() && model.front() == '"') {
    model.remove_prefix(1);
    std::size_t end = 0;
    while (end < model.size() && model[end] != '"') end += model[end] == '\\' ? 2 : 1;
    ask.model = std::string(model.substr(0, std::min(end, model.size())));
  }
  ask.words = directive(ask.model, "+words=", -1);
  ask.delay_ms = directive(ask.model, "+chunk_delay_ms=", 0);
  return ask;
}

std::string json_response(const ChatAsk& ask, std::size_t content_bytes, std::size_t prompt_bytes) {
  const std::string body =
      R"({"id":"chatcmpl-mock","object":"chat.completion","created":1700000000,"model":")" + ask.model +
      R"(","choices":[{"index":0,"message":{"role":"assistant","content":")" + content_text(content_bytes) +
      R"("},"finish_reason":"stop"}],"usage":)" + usage_json(prompt_bytes, content_bytes / 4 + 1) + "}";
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string error_response(int status, std::string_view reason, std::string_view message, bool close) {
  const std::string body = R"({"error":{"message":")" + std::string(message) + R"(","type":")" +
                           std::string(reason) + R"(","code":")" + std::string(reason) + R"("}})";
  return "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         (close ? "\r\nConnection: close" : "") + "\r\n\r\n" + body;
}

std::string stream_head(bool close) {
  return std::string("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n") +
         (close ? "Connection: close\r\n" : "") + "Transfer-Encoding: chunked\r\n\r\n";
}

std::string chunk_event(std::string_view payload) {
  const std::size_t size = payload.size() + 8;  // "data: " + payload + "\n\n"
  char hex[32];
  const int n = std::snprintf(hex, sizeof hex, "%zx\r\n", size);
  std::string out;
  out.reserve(static_cast<std::size_t>(n) + size + 2);
  out.append(hex, static_cast<std::size_t>(n)).append("data: ").append(payload).append("\n\n\r\n");
  return out;
}

std::size_t event_count(int words) {
  return static_cast<std::size_t>(std::max(0, words)) + 3;
}

std::string event_payload(const ChatAsk& ask, int words, std::size_t index, std::size_t prompt_bytes) {
  const std::size_t w = static_cast<std::size_t>(std::max(0, words));
  const std::string prefix =
      R"({"id":"chatcmpl-mock","object":"chat.completion.chunk","created":1700000000,"model":")" + ask.model +
      R"(","choices":)";
  if (index < w) {
    const std::string role = index == 0 ? R"("role":"assistant",)" : "";
    const std::string word = (index == 0 ? "tok" : " tok") + std::to_string(index);
    return prefix + R"([{"index":0,"delta":{)" + role + R"("content":")" + word +
           R"("},"finish_reason":null}]})";
  }
  if (index == w) return prefix + R"([{"index":0,"delta":{},"finish_reason":"stop"}]})";
  if (index == w + 1) return prefix + "[],\"usage\":" + usage_json(prompt_bytes, w) + "}";
  return "[DONE]";
}

std::string_view responses_refusal(std::string_view body) {
  if (member_value(body, "\"store\"").substr(0, 5) != "false") return "store must be false";
  const std::string_view previous = member_value(body, "\"previous_response_id\"");
  if (!previous.empty() && previous.substr(0, 4) != "null")
    return "previous_response_id is not sent natively";
  return {};
}

std::string responses_json_response(const ChatAsk& ask, std::size_t content_bytes, std::size_t prompt_bytes) {
  const std::string body =
      response_object(ask, "completed", "[" + message_item("completed", content_text(content_bytes)) + "]",
                      responses_usage_json(prompt_bytes, content_bytes / 4 + 1));
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string_view messages_refusal(std::string_view body) {
  if (member_value(body, "\"stream\"").substr(0, 4) == "true") return "the mock does not stream messages";
  return {};
}

std::string messages_json_response(const ChatAsk& ask, std::size_t content_bytes, std::size_t prompt_bytes) {
  const std::size_t input = std::max<std::size_t>(1, prompt_bytes / 4);
  const std::string body =
      R"({"id":"msg_mock","type":"message","role":"assistant","content":[{"type":"text","text":")" +
      content_text(content_bytes) + R"("}],"model":")" + ask.model +
      R"(","stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":)" + std::to_string(input) +
      R"(,"output_tokens":)" + std::to_string(content_bytes / 4 + 1) + "}}";
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::size_t responses_group_count(int words) {
  return static_cast<std::size_t>(std::max(0, words)) + 2;
}

std::string responses_group(const ChatAsk& ask, int words, std::size_t index, std::size_t prompt_bytes) {
  const std::size_t w = static_cast<std::size_t>(std::max(0, words));
  static constexpr std::string_view kAt = R"(,"item_id":"msg_mock","output_index":0,"content_index":0)";
  std::string out;
  if (index == 0) {
    const std::string created = R"(,"response":)" + response_object(ask, "in_progress", "[]", "null");
    append_event(out, "response.created", created, 0);
    append_event(out, "response.in_progress", created, 1);
    append_event(out, "response.output_item.added",
                 R"(,"output_index":0,"item":)" + message_item("in_progress", ""), 2);
    append_event(
        out, "response.content_part.added",
        std::string(kAt) + R"(,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""})", 3);
  }
  if (index < w) {
    const std::string word = (index == 0 ? "tok" : " tok") + std::to_string(index);
    append_event(out, "response.output_text.delta",
                 std::string(kAt) + R"(,"delta":")" + word + R"(","logprobs":[])", 4 + index);
  } else if (index == w) {
    const std::string text = stream_text(w);
    append_event(out, "response.output_text.done",
                 std::string(kAt) + R"(,"text":")" + text + R"(","logprobs":[])", 4 + w);
    append_event(out, "response.content_part.done",
                 std::string(kAt) +
                     R"(,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":")" + text +
                     R"("})",
                 5 + w);
    append_event(out, "response.output_item.done",
                 R"(,"output_index":0,"item":)" + message_item("completed", text), 6 + w);
  } else {
    append_event(out, "response.completed",
                 R"(,"response":)" + response_object(ask, "completed",
                                                     "[" + message_item("completed", stream_text(w)) + "]",
                                                     responses_usage_json(prompt_bytes, w)),
                 7 + w);
  }
  return http_chunk(out);
}

}  // namespace bench::mock
