// The forward proxy's record of the requests it handled, served as JSON on
// GET /_proxy/log so that tests can check the gateway really went through
// the proxy (and with which credentials).
#pragma once

#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace fake_proxy {

struct LogEntry {
  std::string method;               // "CONNECT", "POST", ...
  std::string target;               // as the client sent it: "127.0.0.1:443", "http://..."
  std::optional<std::string> auth;  // user name from Proxy-Authorization, if any
  int status = 0;                   // what the client got: the origin's status or the proxy's own
};

class ProxyLog {
 public:
  explicit ProxyLog(size_t capacity = 1000) : capacity_(capacity) {}

  void record(LogEntry entry);
  void clear();
  // [{"method":..,"target":..,"auth":..|null,"status":..}, ...], oldest first.
  std::string toJson() const;

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<LogEntry> entries_;
};

}  // namespace fake_proxy
