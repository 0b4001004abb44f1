// Log lines about one request: each carries the request's id as the
// `request_id` field. The id is passed explicitly (not thread-local) because
// a request's coroutine moves between event-loop and blocking-pool threads.
//
//   logging::for_request(call.request_id()).warn("provider '{}': {}", name, why);
#pragma once

#include "logging/log_line.h"

#include <spdlog/spdlog.h>

#include <string_view>
#include <utility>

namespace modelgw::logging {

// The payload of a line about request `request_id`.
std::string request_payload(std::string_view request_id, std::string_view message);

class RequestLog {
 public:
  explicit RequestLog(std::string_view request_id) : request_id_(request_id) {}

  template <typename... Args>
  void log(spdlog::level::level_enum level, spdlog::format_string_t<Args...> fmt, Args&&... args) const {
    spdlog::logger* logger = spdlog::default_logger_raw();
    if (!logger->should_log(level)) return;  // nothing is formatted for a line nobody keeps
    const std::string payload = request_payload(request_id_, fmt::format(fmt, std::forward<Args>(args)...));
    logger->log(level, spdlog::string_view_t(payload));
  }
  template <typename... Args>
  void debug(spdlog::format_string_t<Args...> fmt, Args&&... args) const {
    log(spdlog::level::debug, fmt, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void info(spdlog::format_string_t<Args...> fmt, Args&&... args) const {
    log(spdlog::level::info, fmt, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void warn(spdlog::format_string_t<Args...> fmt, Args&&... args) const {
    log(spdlog::level::warn, fmt, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void error(spdlog::format_string_t<Args...> fmt, Args&&... args) const {
    log(spdlog::level::err, fmt, std::forward<Args>(args)...);
  }

 private:
  std::string_view request_id_;  // the caller's; a RequestLog lives for one statement
};

inline RequestLog for_request(std::string_view request_id) {
  return RequestLog(request_id);
}

}  // namespace modelgw::logging
