#include "test_client.h"

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>

#include <algorithm>
#include <cctype>

namespace fake_proxy::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxReceived = 64u << 20;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// De-chunks `bytes` from `pos`; returns the offset after the body or npos if
// it is incomplete.
size_t dechunk(const std::string& bytes, size_t pos, std::string& body) {
  while (true) {
    const auto lineEnd = bytes.find("\r\n", pos);
    if (lineEnd == std::string::npos) return std::string::npos;
    const size_t size = std::stoul(bytes.substr(pos, lineEnd - pos), nullptr, 16);
    pos = lineEnd + 2;
    if (size == 0) {
      const auto end = bytes.find("\r\n", pos);  // no trailers in these tests
      return end == std::string::npos ? std::string::npos : end + 2;
    }
    if (bytes.size() < pos + size + 2) return std::string::npos;
    body += bytes.substr(pos, size);
    pos += size + 2;
  }
}

}  // namespace

RawClient::RawClient(int port) {
  socket_.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)),
                  Poco::Timespan(5, 0));
  socket_.setReceiveTimeout(Poco::Timespan(0, 100'000));
}

void RawClient::send(const std::string& bytes) {
  socket_.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
}

bool RawClient::readSome(std::chrono::milliseconds timeout) {
  if (eof_ || received_.size() > kMaxReceived) return false;
  const auto deadline = Clock::now() + timeout;
  char buffer[16384];
  while (Clock::now() < deadline) {
    try {
      const int n = socket_.receiveBytes(buffer, sizeof buffer);
      if (n <= 0) {
        eof_ = true;
        return false;
      }
      received_.append(buffer, static_cast<size_t>(n));
      return true;
    } catch (const Poco::TimeoutException&) {
    } catch (const Poco::Net::NetException&) {
      eof_ = true;
      return false;
    }
  }
  return false;
}

bool RawClient::readUntil(const std::string& needle, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (received_.find(needle) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !readSome(left)) return received_.find(needle) != std::string::npos;
  }
  return true;
}

bool RawClient::readToEof(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!eof_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    readSome(left);
  }
  return true;
}

std::optional<RawResponse> RawClient::readResponse(bool headRequest, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    size_t consumed = 0;
    if (auto r = parseResponse(received_, headRequest, consumed)) {
      received_.erase(0, consumed);
      return r;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !readSome(left)) return std::nullopt;
  }
}

std::optional<RawResponse> parseResponse(const std::string& bytes, bool headRequest, size_t& consumed) {
  const auto headEnd = bytes.find("\r\n\r\n");
  if (headEnd == std::string::npos || bytes.compare(0, 5, "HTTP/") != 0 || bytes.size() < 12)
    return std::nullopt;
  RawResponse r;
  r.head = bytes.substr(0, headEnd + 4);
  r.status = std::stoi(bytes.substr(9, 3));
  size_t pos = bytes.find("\r\n") + 2;
  while (pos < headEnd) {
    const auto end = bytes.find("\r\n", pos);
    const auto line = bytes.substr(pos, end - pos);
    const auto colon = line.find(':');
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    value.erase(value.find_last_not_of(' ') + 1);
    r.headers[lower(line.substr(0, colon))] = value;
    pos = end + 2;
  }
  const size_t bodyStart = headEnd + 4;
  size_t end = bodyStart;
  if (headRequest || r.status < 200 || r.status == 204 || r.status == 304) {
    end = bodyStart;
  } else if (lower(r.header("transfer-encoding")) == "chunked") {
    end = dechunk(bytes, bodyStart, r.body);
    if (end == std::string::npos) return std::nullopt;
  } else if (!r.header("content-length").empty()) {
    const size_t length = std::stoul(r.header("content-length"));
    if (bytes.size() < bodyStart + length) return std::nullopt;
    r.body = bytes.substr(bodyStart, length);
    end = bodyStart + length;
  } else {
    return std::nullopt;  // close-delimited: use readToEof()
  }
  r.raw = bytes.substr(0, end);
  consumed = end;
  return r;
}

std::string request(const std::string& method, const std::string& target, const std::string& body,
                    const std::string& extraHeaders) {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extraHeaders;
  if (!body.empty() || method == "POST") out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return out + "\r\n" + body;
}

}  // namespace fake_proxy::test
