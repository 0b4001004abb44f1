// What both upstream clients share: the request to send, its timeouts and how
// a call fails (classified for the spec's error codes). Kept apart from any
// transport so the callers do not depend on one.
#pragma once

#include <chrono>
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

}  // namespace modelgw::upstream
