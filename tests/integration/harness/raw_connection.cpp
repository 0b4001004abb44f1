#include "harness/raw_connection.h"

#include "harness/http_client.h"

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>

#include <algorithm>
#include <cctype>

namespace it {

RawConnection::RawConnection(int port) {
  socket_.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)),
                  Poco::Timespan(5, 0));
  socket_.setReceiveTimeout(Poco::Timespan(0, 50'000));
}

void RawConnection::send(const std::string& bytes) {
  socket_.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
}

// Reads what is available (waiting at most until `deadline`); false at EOF.
bool RawConnection::fill(std::chrono::steady_clock::time_point deadline) {
  char chunk[16384];
  while (!eof_ && std::chrono::steady_clock::now() < deadline) {
    try {
      const int n = socket_.receiveBytes(chunk, sizeof chunk);
      if (n <= 0) {
        eof_ = true;
        break;
      }
      buffer_.append(chunk, static_cast<std::size_t>(n));
      return true;
    } catch (const Poco::TimeoutException&) {
    } catch (const Poco::Exception&) {
      eof_ = true;
    }
  }
  return !eof_;
}

std::optional<HttpResponse> RawConnection::read_response(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto head_end = buffer_.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      HttpResponse r;
      if (buffer_.compare(0, 9, "HTTP/1.1 ") != 0) return std::nullopt;
      r.status = std::stoi(buffer_.substr(9, 3));
      std::size_t pos = buffer_.find("\r\n") + 2;
      while (pos < head_end) {
        const auto end = buffer_.find("\r\n", pos);
        const std::string line = buffer_.substr(pos, end - pos);
        const auto colon = line.find(':');
        if (colon != std::string::npos) {
          std::string value = line.substr(colon + 1);
          value.erase(0, value.find_first_not_of(' '));
          r.headers.emplace_back(ascii_lower(line.substr(0, colon)), value);
        }
        pos = end + 2;
      }
      const std::string length = r.header("content-length");
      const std::size_t body_size = length.empty() ? 0 : std::stoul(length);
      if (buffer_.size() >= head_end + 4 + body_size) {
        r.body = buffer_.substr(head_end + 4, body_size);
        buffer_.erase(0, head_end + 4 + body_size);
        return r;
      }
    }
    if (!fill(deadline)) return std::nullopt;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
  }
}

bool RawConnection::closed_without_more(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (buffer_.empty() && !eof_ && std::chrono::steady_clock::now() < deadline) fill(deadline);
  return buffer_.empty() && eof_;
}

std::string raw_request(const std::string& method, const std::string& path, const std::string& body,
                        const std::string& authorization) {
  std::string r = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!authorization.empty()) r += "Authorization: " + authorization + "\r\n";
  r += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  return r + body;
}

}  // namespace it
