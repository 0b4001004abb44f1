// One client HTTP call as the handlers see it: the POCO request/response pair,
// its request_id and start time, and the helpers that answer it in the spec's
// shapes (every answer carries X-Request-Id; every error the envelope).
#pragma once

#include "http/api_error.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <chrono>
#include <string>
#include <string_view>

namespace modelgw::http {

struct Call {
  Poco::Net::HTTPServerRequest& request;
  Poco::Net::HTTPServerResponse& response;
  std::string request_id;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  int status_sent = 0;  // 0 until an answer's head was sent
  // Set once the request body was read (or deliberately refused). An answer
  // sent before that first reads and discards the body (up to drain_limit), so
  // the next request on a kept-alive connection starts where it should.
  bool body_settled = false;
  std::size_t drain_limit = 4u << 20;

  // Sends a complete JSON answer.
  void send_json(int status, std::string_view body);
  // Sends the error envelope (with Retry-After when the error has one).
  void send_error(const ApiError& error);

  std::int64_t elapsed_us() const;
  // The client's socket, to notice a hang-up while the gateway waits upstream.
  int client_fd() const;
  // True when the client closed its connection (checked without waiting).
  bool client_hung_up() const;

 private:
  void settle_body();
};

// Writes `object` (a JSON object's text) into `out` with "request_id" added as
// its first member, without parsing it. False when `object` is not an object.
bool append_with_request_id(std::string& out, std::string_view object, std::string_view request_id);

}  // namespace modelgw::http
