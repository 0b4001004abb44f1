// One HTTP request/response with an upstream over a pooled connection: send,
// wait for the head within the first-byte timeout, then read the body whole or
// as it arrives, all within the total timeout. Every wait also watches the
// client's connection: when the client hangs up, the upstream call is dropped
// at once. Failures come out as UpstreamFailure, classified for the spec.
#pragma once

#include "upstream/connection_pool.h"
#include "upstream/upstream_response.h"

#include <Poco/Net/HTTPResponse.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace modelgw::upstream {

enum class FailureKind {
  connect,  // no connection could be made: the request never reached the vendor
  busy,     // every connection of the pool stayed busy: the request never left
  timeout,  // connected, but the vendor did not answer in time
  io,       // the connection broke or the response was malformed
  too_large,
  cancelled,  // the client hung up; the upstream call was dropped
};

class UpstreamFailure : public std::runtime_error {
 public:
  UpstreamFailure(FailureKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  FailureKind kind() const { return kind_; }

 private:
  FailureKind kind_;
};

struct OutgoingRequest {
  std::string method = "POST";
  std::string path;  // appended to the base_url path
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct Timeouts {
  std::chrono::milliseconds first_byte{60000};  // the head; and each next piece of a stream
  std::chrono::milliseconds total{600000};      // the whole exchange
};

class Exchange {
 public:
  // `client_fd`: the client's socket, watched for a hang-up; -1 for none.
  Exchange(ConnectionPool& pool, Timeouts timeouts, int client_fd);
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Sends the request and reads the response head. A pooled connection the
  // server closed while idle is replaced once, transparently.
  void start(const OutgoingRequest& request);

  int status() const { return response_.status_code(); }
  const Poco::Net::HTTPResponse& response() const { return response_; }

  // The whole body, within the total timeout.
  std::string read_all(std::size_t max_bytes);
  // Whatever part of the body has arrived (waiting up to the first-byte
  // timeout for at least one byte); 0 at the end of the body.
  std::size_t read_some(char* buffer, std::size_t capacity);
  // Drops the connection at once (client went away, or an error mid-body).
  void abort();

 private:
  enum class Wait { ready, timeout, client_gone };

  void send_once(const OutgoingRequest& request);
  Wait wait_readable(std::chrono::steady_clock::time_point until);
  void set_receive_timeout(std::chrono::steady_clock::time_point until);
  std::chrono::steady_clock::time_point next_piece_deadline() const;
  [[noreturn]] void fail(FailureKind kind, const std::string& message);
  std::streambuf& body();
  // At least one byte (blocking up to the receive timeout), then only what is
  // already buffered; 0 at the end of the body.
  std::size_t read_available(char* buffer, std::size_t capacity);

  ConnectionPool& pool_;
  Timeouts timeouts_;
  int client_fd_;
  std::chrono::steady_clock::time_point deadline_;  // of the whole exchange
  std::unique_ptr<Poco::Net::HTTPClientSession> session_;
  UpstreamResponse response_;
  std::istream* body_ = nullptr;
  bool body_done_ = false;
  // Body bytes still to come when the head says how many (Content-Length; 0
  // for HEAD, 1xx, 204, 304), else -1 (chunked, or until close). At 0 the end
  // of the body is known without waiting for the socket.
  std::int64_t body_left_ = -1;
};

}  // namespace modelgw::upstream
