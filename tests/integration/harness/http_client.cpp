#include "harness/http_client.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <cctype>
#include <istream>
#include <sstream>
#include <thread>

namespace it {

std::string ascii_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

namespace {

std::string find_header(const Headers& headers, const std::string& name) {
  const std::string want = ascii_lower(name);
  for (const auto& [n, v] : headers) {
    if (n == want) return v;
  }
  return {};
}

Headers collect_headers(const Poco::Net::HTTPResponse& response) {
  Headers out;
  for (const auto& [name, value] : response) out.emplace_back(ascii_lower(name), value);
  return out;
}

std::unique_ptr<Poco::Net::HTTPClientSession> open_session(int port, std::chrono::milliseconds timeout) {
  auto session = std::make_unique<Poco::Net::HTTPClientSession>("127.0.0.1", static_cast<Poco::UInt16>(port));
  session->setTimeout(Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(timeout.count()) * 1000));
  session->setKeepAlive(false);
  return session;
}

void send(Poco::Net::HTTPClientSession& session, const HttpRequest& request) {
  Poco::Net::HTTPRequest req(request.method, request.path, Poco::Net::HTTPMessage::HTTP_1_1);
  req.setHost("127.0.0.1");
  for (const auto& [name, value] : request.headers) req.set(name, value);
  const bool has_body = request.method == "POST" || request.method == "PUT" || !request.body.empty();
  if (has_body) {
    if (request.json_content_type) req.setContentType("application/json");
    req.setContentLength(static_cast<std::streamsize>(request.body.size()));
  }
  std::ostream& out = session.sendRequest(req);
  out.flush();
  if (request.delay_before_body.count() > 0) std::this_thread::sleep_for(request.delay_before_body);
  if (has_body) out.write(request.body.data(), static_cast<std::streamsize>(request.body.size()));
  out.flush();
}

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  return find_header(headers, name);
}

bool HttpResponse::has_header(const std::string& name) const {
  const std::string want = ascii_lower(name);
  return std::any_of(headers.begin(), headers.end(), [&](const auto& h) { return h.first == want; });
}

nlohmann::json HttpResponse::json() const {
  return nlohmann::json::parse(body, nullptr, false);
}

HttpResponse http_call(int port, const HttpRequest& request) {
  auto session = open_session(port, request.timeout);
  send(*session, request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session->receiveResponse(response);
  HttpResponse out;
  out.status = static_cast<int>(response.getStatus());
  out.headers = collect_headers(response);
  std::ostringstream body;
  Poco::StreamCopier::copyStream(in, body);
  out.body = body.str();
  return out;
}

HttpResponse raw_http(int port, const std::string& raw, std::chrono::milliseconds timeout) {
  Poco::Net::StreamSocket socket;
  socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)),
                 Poco::Timespan(5, 0));
  socket.setReceiveTimeout(Poco::Timespan(0, 100'000));
  try {
    socket.sendBytes(raw.data(), static_cast<int>(raw.size()));
  } catch (const Poco::Exception&) {
    // The server may answer and close before it has read everything.
  }
  std::string bytes;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[16384];
  while (std::chrono::steady_clock::now() < deadline && bytes.size() < (16u << 20)) {
    try {
      const int n = socket.receiveBytes(buffer, sizeof buffer);
      if (n <= 0) break;
      bytes.append(buffer, static_cast<std::size_t>(n));
    } catch (const Poco::TimeoutException&) {
    } catch (const Poco::Exception&) {
      break;  // reset after the answer
    }
  }
  HttpResponse out;
  const auto head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string::npos || bytes.compare(0, 9, "HTTP/1.1 ") != 0) return out;
  out.status = std::stoi(bytes.substr(9, 3));
  std::size_t pos = bytes.find("\r\n") + 2;
  while (pos < head_end) {
    const auto end = bytes.find("\r\n", pos);
    const std::string line = bytes.substr(pos, end - pos);
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      out.headers.emplace_back(ascii_lower(line.substr(0, colon)), value);
    }
    pos = end + 2;
  }
  out.body = bytes.substr(head_end + 4);
  if (const std::string length = out.header("content-length"); !length.empty()) {
    out.body.resize(std::min(out.body.size(), static_cast<std::size_t>(std::stoul(length))));
  }
  return out;
}

HttpResponse http_get(int port, const std::string& path, const std::string& api_key) {
  HttpRequest req;
  req.method = "GET";
  req.path = path;
  req.json_content_type = false;
  if (!api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + api_key);
  return http_call(port, req);
}

HttpResponse post_responses(int port, const std::string& api_key, const nlohmann::json& body,
                            const Headers& extra) {
  HttpRequest req;
  req.path = "/v1/responses";
  req.body = body.dump();
  req.headers.emplace_back("Authorization", "Bearer " + api_key);
  for (const auto& h : extra) req.headers.push_back(h);
  return http_call(port, req);
}

HttpResponse post_chat(int port, const std::string& api_key, const std::string& body) {
  HttpRequest req;
  req.body = body;
  if (!api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + api_key);
  return http_call(port, req);
}

SseStream::SseStream(int port, const std::string& api_key, const std::string& body,
                     std::chrono::milliseconds read_timeout, const Headers& extra, const std::string& path) {
  session_ = open_session(port, read_timeout);
  HttpRequest req;
  req.path = path;
  req.body = body;
  if (!api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + api_key);
  req.headers.emplace_back("Accept", "text/event-stream");
  for (const auto& h : extra) req.headers.push_back(h);
  sent_ = std::chrono::steady_clock::now();
  send(*session_, req);
  response_ = std::make_unique<Poco::Net::HTTPResponse>();
  in_ = &session_->receiveResponse(*response_);
  status_ = static_cast<int>(response_->getStatus());
  headers_ = collect_headers(*response_);
}

SseStream::~SseStream() = default;

std::string SseStream::header(const std::string& name) const {
  return find_header(headers_, name);
}

std::optional<SseEvent> SseStream::next() {
  if (ended_) return std::nullopt;
  std::string line;
  std::string data;
  std::string type;
  bool has_data = false;
  try {
    while (true) {
      const int c = in_->get();
      if (c == std::char_traits<char>::eof()) {
        ended_ = true;
        if (in_->bad()) {
          error_ = "reading the stream failed (timeout or connection reset)";
        } else if (!line.empty() || has_data) {
          error_ = "the stream ended inside an event";
        }
        return std::nullopt;
      }
      if (c != '\n') {
        line.push_back(static_cast<char>(c));
        continue;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) {
        if (has_data) {
          return SseEvent{data, type,
                          std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - sent_)};
        }
      } else if (line.rfind("data:", 0) == 0) {
        std::string value = line.substr(5);
        if (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (has_data) data.push_back('\n');
        data += value;
        has_data = true;
      } else if (line.rfind("event:", 0) == 0) {
        type = line.substr(6);
        if (!type.empty() && type.front() == ' ') type.erase(0, 1);
      }  // comments and other fields are ignored
      line.clear();
    }
  } catch (const Poco::Exception& e) {
    error_ = e.displayText();
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  ended_ = true;
  return std::nullopt;
}

std::string SseStream::rest() {
  std::ostringstream body;
  try {
    Poco::StreamCopier::copyStream(*in_, body);
  } catch (const Poco::Exception& e) {
    error_ = e.displayText();
  }
  ended_ = true;
  return body.str();
}

std::string SseResult::header(const std::string& name) const {
  return find_header(headers, name);
}

SseResult stream_chat(int port, const std::string& api_key, const std::string& body, std::size_t max_events,
                      const Headers& extra, const std::string& path) {
  SseStream stream(port, api_key, body, std::chrono::milliseconds(20000), extra, path);
  SseResult result;
  result.status = stream.status();
  result.headers = stream.headers();
  if (stream.header("content-type").rfind("text/event-stream", 0) != 0) {
    result.body = stream.rest();
    return result;
  }
  while (result.events.size() < max_events) {
    auto event = stream.next();
    if (!event) break;
    result.events.push_back(std::move(*event));
  }
  result.error = stream.error();
  return result;
}

}  // namespace it
