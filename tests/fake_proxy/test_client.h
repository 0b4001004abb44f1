// A raw HTTP/1.1 client for the fake_proxy tests: bytes in, bytes out, so the
// tests see exactly what the proxy sends (chunk framing, head bytes). Every
// read is bounded in time and size.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace fake_proxy::test {

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string head;                            // raw, up to and including the blank line
  std::string body;                            // de-chunked
  std::string raw;                             // head + body bytes as received

  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class RawClient {
 public:
  explicit RawClient(int port);

  void send(const std::string& bytes);
  void shutdownSend() { socket_.shutdownSend(); }
  // Reads until `received()` contains `needle`, the peer closes or `timeout`
  // passes; true if the needle arrived.
  bool readUntil(const std::string& needle, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Reads until the peer closes (or the timeout); true if it did close.
  bool readToEof(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // One complete response off the front of the stream (Content-Length,
  // chunked, or no body for HEAD/1xx/204/304); nullopt if none came in time.
  std::optional<RawResponse> readResponse(bool headRequest = false,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(10));

  std::string& received() { return received_; }
  bool eof() const { return eof_; }

 private:
  bool readSome(std::chrono::milliseconds timeout);  // false on EOF/timeout

  Poco::Net::StreamSocket socket_;
  std::string received_;
  bool eof_ = false;
};

// Parses a complete response at the start of `bytes`; sets `consumed`.
std::optional<RawResponse> parseResponse(const std::string& bytes, bool headRequest, size_t& consumed);

// "GET http://127.0.0.1:P/path HTTP/1.1" with Host, optional headers and body.
std::string request(const std::string& method, const std::string& target, const std::string& body = "",
                    const std::string& extraHeaders = "");

}  // namespace fake_proxy::test
