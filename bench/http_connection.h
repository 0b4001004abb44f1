// One blocking, keep-alive HTTP/1.1 connection to 127.0.0.1 over a raw
// socket: send a prepared request, read one response. Used by the load
// generator (one per worker) and for readiness checks.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

// Thrown when the connection fails (connect, send, receive, timeout, bad
// framing). The connection is closed; the next exchange reconnects.
class HttpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HttpConnection {
 public:
  // Every socket operation waits at most timeout_ms.
  HttpConnection(std::uint16_t port, int timeout_ms);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Connects now (otherwise the first exchange does).
  void connect();
  // Sends `request` and returns the response status; the body is left in
  // body() until the next exchange.
  int exchange(std::string_view request);
  const std::string& body() const { return body_; }
  void close();

 private:
  void fill();  // receives at least one byte into buf_, or throws

  std::uint16_t port_;
  int timeout_ms_;
  int fd_ = -1;
  std::vector<char> buf_;
  std::size_t begin_ = 0;  // unread bytes are buf_[begin_, end_)
  std::size_t end_ = 0;
  std::string body_;
};

}  // namespace bench
