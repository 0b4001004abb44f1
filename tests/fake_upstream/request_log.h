// The last N requests received on API routes, served by GET /_fake/requests so
// tests can check what the gateway really sent upstream (headers, rewritten
// bodies). Benchmarks hammer the API routes, so record() only moves strings
// into a bounded deque under a mutex; JSON is built when someone asks.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace Poco::Net {
class HTTPServerRequest;
}

namespace fake_upstream {

class RequestLog {
 public:
  explicit RequestLog(size_t capacity) : capacity_(capacity) {}

  // Copies method, URI and headers of `request` and takes `body` over.
  void record(const Poco::Net::HTTPServerRequest& request, std::string body);

  // JSON array, oldest first: {"method","path","query","headers","body"}.
  // Header names are lower-cased; the body is parsed JSON, or the raw string
  // when it is not JSON.
  std::string toJson() const;

  // Forgets everything; returns how many entries were dropped.
  size_t clear();

 private:
  struct Entry {
    std::string method;
    std::string uri;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool repeats_a_name = false;  // see request_log.cpp
  };

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;
};

}  // namespace fake_upstream
