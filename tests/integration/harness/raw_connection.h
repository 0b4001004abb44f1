// One keep-alive TCP connection to the gateway, spoken to in raw HTTP/1.1, so
// a test can see exactly how many answers come back on it and in what order.
#pragma once

#include "harness/http_client.h"

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <optional>
#include <string>

namespace it {

class RawConnection {
 public:
  explicit RawConnection(int port);

  void send(const std::string& bytes);
  // The next answer (Content-Length bodies only); nullopt if the server closed
  // the connection or nothing complete came within `timeout`.
  std::optional<HttpResponse> read_response(
      std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  // True when the server closed the connection within `timeout` with nothing
  // more to read; false if bytes arrived or it stayed open.
  bool closed_without_more(std::chrono::milliseconds timeout);
  const std::string& unread() const { return buffer_; }

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);

  Poco::Net::StreamSocket socket_;
  std::string buffer_;
  bool eof_ = false;
};

// "POST <path> HTTP/1.1" with Content-Length and optional Authorization.
std::string raw_request(const std::string& method, const std::string& path, const std::string& body,
                        const std::string& authorization = {});

}  // namespace it
