// One HTTP request/response with an upstream over a pooled connection: send,
// wait for the head within the timeout, then read the body whole or as it
// arrives. Failures come out as UpstreamFailure, classified for the spec.
#pragma once

#include "upstream/connection_pool.h"

#include <Poco/Net/HTTPResponse.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace modelgw::upstream {

enum class FailureKind {
  connect,  // no connection could be made: the request never reached the vendor
  timeout,  // connected, but the vendor did not answer in time
  io,       // the connection broke or the response was malformed
  too_large,
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

class Exchange {
 public:
  Exchange(ConnectionPool& pool, int timeout_ms);
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Sends the request and reads the response head. A pooled connection the
  // server closed while idle is replaced once, transparently.
  void start(const OutgoingRequest& request);

  int status() const { return static_cast<int>(response_.getStatus()); }
  const Poco::Net::HTTPResponse& response() const { return response_; }

  // The whole body, within the call's total timeout.
  std::string read_all(std::size_t max_bytes);
  // Whatever part of the body has arrived (waiting up to the timeout for at
  // least one byte); 0 at the end of the body.
  std::size_t read_some(char* buffer, std::size_t capacity);
  // Drops the connection at once (client went away, or an error mid-body).
  void abort();

 private:
  void send_once(const OutgoingRequest& request);
  void set_receive_timeout(std::chrono::milliseconds timeout);
  std::streambuf& body();

  ConnectionPool& pool_;
  std::chrono::milliseconds timeout_;
  std::chrono::steady_clock::time_point deadline_;
  std::unique_ptr<Poco::Net::HTTPClientSession> session_;
  Poco::Net::HTTPResponse response_;
  std::istream* body_ = nullptr;
  bool body_done_ = false;
};

}  // namespace modelgw::upstream
