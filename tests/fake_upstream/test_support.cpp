#include "test_support.h"

#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <poll.h>
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <stdexcept>
#include <thread>

namespace fake_upstream::test {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

FakeUpstream::FakeUpstream(const std::string& binary, const std::vector<std::string>& args) {
  handle_ =
      std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(binary, args, nullptr, &out_, nullptr));
  port_ = readListeningPort();
}

FakeUpstream::~FakeUpstream() {
  stop();
}

int FakeUpstream::stop() {
  if (!handle_) return exitCode_;
  ::kill(handle_->id(), SIGTERM);
  const auto deadline = Clock::now() + 5s;
  while (Clock::now() < deadline) {
    const int code = handle_->tryWait();
    if (code != -1) {
      exitCode_ = code;
      handle_.reset();
      return code;
    }
    std::this_thread::sleep_for(10ms);
  }
  Poco::Process::kill(*handle_);
  handle_->wait();
  handle_.reset();
  exitCode_ = -1;
  return exitCode_;
}

// Reads "LISTENING <port>\n" from the child's stdout, for at most 10 s.
int FakeUpstream::readListeningPort() {
  const int fd = out_.readHandle();
  std::string line;
  const auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline && line.size() < 200) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char c = 0;
    if (::read(fd, &c, 1) != 1) break;
    if (c == '\n') break;
    line.push_back(c);
  }
  const std::string prefix = "LISTENING ";
  if (line.rfind(prefix, 0) != 0) {
    stop();
    throw std::runtime_error("fake_upstream did not report its port, got: '" + line + "'");
  }
  return std::stoi(line.substr(prefix.size()));
}

RawResult rawExchange(int port, const std::string& request, std::chrono::milliseconds timeout) {
  Poco::Net::StreamSocket socket;
  socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)),
                 Poco::Timespan(5, 0));
  socket.setReceiveTimeout(Poco::Timespan(0, 100'000));
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  RawResult result;
  const auto deadline = Clock::now() + timeout;
  char buffer[16384];
  while (Clock::now() < deadline && result.bytes.size() < (64u << 20)) {
    try {
      const int n = socket.receiveBytes(buffer, sizeof buffer);
      if (n <= 0) {
        result.eof = true;
        break;
      }
      result.bytes.append(buffer, static_cast<size_t>(n));
    } catch (const Poco::TimeoutException&) {
    } catch (const Poco::Net::ConnectionResetException&) {
      result.eof = true;
      break;
    }
  }
  return result;
}

std::string buildRequest(const std::string& method, const std::string& path, const std::string& body,
                         const std::vector<std::string>& extraHeaders, bool close) {
  std::string request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (close) request += "Connection: close\r\n";
  for (const auto& header : extraHeaders) request += header + "\r\n";
  if (!body.empty() || method == "POST") {
    request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return request + "\r\n" + body;
}

Response parseResponse(const std::string& raw) {
  Response r;
  const auto headerEnd = raw.find("\r\n\r\n");
  if (headerEnd == std::string::npos || raw.compare(0, 9, "HTTP/1.1 ") != 0) return r;
  r.status = std::stoi(raw.substr(9, 3));
  size_t pos = raw.find("\r\n") + 2;
  while (pos < headerEnd) {
    const auto end = raw.find("\r\n", pos);
    const auto line = raw.substr(pos, end - pos);
    const auto colon = line.find(':');
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    r.headers[lower(line.substr(0, colon))] = value;
    pos = end + 2;
  }
  const std::string rest = raw.substr(headerEnd + 4);
  r.chunked = lower(r.header("transfer-encoding")) == "chunked";
  if (!r.chunked) {
    r.body = rest;
    r.complete = r.headers.count("content-length") && std::stoul(r.header("content-length")) == rest.size();
    return r;
  }
  pos = 0;
  while (pos < rest.size()) {
    const auto lineEnd = rest.find("\r\n", pos);
    if (lineEnd == std::string::npos) break;
    const size_t size = std::stoul(rest.substr(pos, lineEnd - pos), nullptr, 16);
    pos = lineEnd + 2;
    if (size == 0) {
      r.complete = rest.compare(pos, 2, "\r\n") == 0;
      break;
    }
    r.body += rest.substr(pos, size);  // may be partial when truncated
    if (pos + size + 2 > rest.size()) break;
    r.chunkSizes.push_back(size);
    pos += size + 2;
  }
  return r;
}

Response call(int port, const std::string& method, const std::string& path, const std::string& body,
              const std::vector<std::string>& headers) {
  return parseResponse(rawExchange(port, buildRequest(method, path, body, headers)).bytes);
}

SseStream parseSse(const std::string& body) {
  SseStream out;
  std::string data;
  std::string event;
  bool haveData = false;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find_first_of("\r\n", pos);
    if (end == std::string::npos) break;  // an unterminated line is not an event yet
    const std::string line = body.substr(pos, end - pos);
    pos = end + ((body[end] == '\r' && end + 1 < body.size() && body[end + 1] == '\n') ? 2 : 1);
    if (line.empty()) {
      if (haveData) {
        out.data.push_back(data);
        out.events.push_back(event);
      }
      data.clear();
      event.clear();
      haveData = false;
    } else if (line[0] == ':') {
      out.comments.push_back(line);
    } else if (line.rfind("data:", 0) == 0) {
      if (haveData) data += "\n";
      data += line.substr(line.size() > 5 && line[5] == ' ' ? 6 : 5);
      haveData = true;
    } else if (line.rfind("event:", 0) == 0) {
      event = line.substr(line.size() > 6 && line[6] == ' ' ? 7 : 6);
    }
  }
  return out;
}

}  // namespace fake_upstream::test
