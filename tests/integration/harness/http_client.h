// A small HTTP/1.1 client for 127.0.0.1: whole responses, and SSE streams
// read event by event with the time each event arrived.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace Poco::Net {
class HTTPClientSession;
class HTTPResponse;
}  // namespace Poco::Net

namespace it {

// ASCII lower case, for header names.
std::string ascii_lower(std::string s);

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "POST";
  std::string path = "/v1/chat/completions";
  std::string body;
  Headers headers;  // sent as given, e.g. {"Authorization", "Bearer ..."}
  bool json_content_type = true;
  std::chrono::milliseconds timeout{20000};
  // Sends the headers, waits this long, then the body: a slow uploader.
  std::chrono::milliseconds delay_before_body{0};
};

struct HttpResponse {
  int status = 0;
  Headers headers;  // names lower-cased
  std::string body;

  std::string header(const std::string& name) const;  // "" when absent
  bool has_header(const std::string& name) const;
  nlohmann::json json() const;  // discarded value when the body is not JSON
};

HttpResponse http_call(int port, const HttpRequest& request);
HttpResponse http_get(int port, const std::string& path, const std::string& api_key = {});
// Writes `raw` (a whole HTTP/1.1 request) in one go, then reads until the
// server closes (or a reset after its answer), and parses the answer.
HttpResponse raw_http(int port, const std::string& raw,
                      std::chrono::milliseconds timeout = std::chrono::milliseconds(20000));
// POST /v1/chat/completions with "Authorization: Bearer <api_key>" (none if empty).
HttpResponse post_chat(int port, const std::string& api_key, const std::string& body);
// POST /v1/responses with `body` and the bearer key, plus `extra` headers.
HttpResponse post_responses(int port, const std::string& api_key, const nlohmann::json& body,
                            const Headers& extra = {});

struct SseEvent {
  std::string data;                // the data: lines, joined
  std::string type;                // the event: field ("" when none, as chat sends)
  std::chrono::microseconds at{};  // since the request was sent
};

// An open SSE response, read one event at a time.
class SseStream {
 public:
  SseStream(int port, const std::string& api_key, const std::string& body,
            std::chrono::milliseconds read_timeout = std::chrono::milliseconds(20000),
            const Headers& extra = {}, const std::string& path = "/v1/chat/completions");
  ~SseStream();
  SseStream(const SseStream&) = delete;
  SseStream& operator=(const SseStream&) = delete;

  int status() const { return status_; }
  const Headers& headers() const { return headers_; }
  std::string header(const std::string& name) const;
  // The next event; nullopt at the end of the body (or on a read error, then
  // error() says what happened).
  std::optional<SseEvent> next();
  // Reads what is left (without parsing events): for a non-SSE answer.
  std::string rest();
  const std::string& error() const { return error_; }
  bool ended() const { return ended_; }

 private:
  std::unique_ptr<Poco::Net::HTTPClientSession> session_;
  std::unique_ptr<Poco::Net::HTTPResponse> response_;
  std::istream* in_ = nullptr;
  std::chrono::steady_clock::time_point sent_;
  int status_ = 0;
  Headers headers_;
  std::string error_;
  bool ended_ = false;
};

struct SseResult {
  int status = 0;
  Headers headers;
  std::vector<SseEvent> events;
  std::string body;   // the whole body when the answer was not a stream
  std::string error;  // a read error, if the stream did not end cleanly
  std::string header(const std::string& name) const;
};

// Sends a streamed chat request and reads the whole answer, boundedly.
SseResult stream_chat(int port, const std::string& api_key, const std::string& body,
                      std::size_t max_events = 10000, const Headers& extra = {},
                      const std::string& path = "/v1/chat/completions");

}  // namespace it
