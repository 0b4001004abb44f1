// The access log: exactly one line per HTTP request, written by the transport
// when the request ends (http/connection.cpp), whatever answered it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace spdlog {
class logger;
}

namespace modelgw::logging {

enum class AccessFormat { json, combined };

struct AccessRecord {
  std::string request_id;
  std::string method;
  std::string path;  // without the query string: its values may hold anything
  int status = 0;
  std::string error_code;   // "" for a success
  std::uint64_t bytes = 0;  // written to the client, head included
  std::int64_t duration_us = 0;
  std::string tenant;    // its name once authenticated; "" before
  std::string alias;     // chat: the model alias asked for
  std::string provider;  // chat: the provider that answered last
  std::string trace_id;  // filled when tracing is on; "" otherwise
  bool streamed = false;
  bool delivered = true;  // false: the client was gone before the answer reached it
};

// Set by logging::init before any request: the logger access lines go to
// (nullptr: none are written). It has its own level, so logging.level: warn
// keeps the access log.
void configure_access_log(std::shared_ptr<spdlog::logger> logger, AccessFormat format);
bool access_log_enabled();
// Queues the line (the logger is async when serving: no write on the caller's loop).
void write_access(const AccessRecord& record);

}  // namespace modelgw::logging
