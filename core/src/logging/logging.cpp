#include "logging/logging.h"

#include <spdlog/async.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace modelgw::logging {

void init(const std::string& level, bool async) {
  std::shared_ptr<spdlog::logger> logger;
  if (async) {
    spdlog::init_thread_pool(16384, 1);
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    // Under overload, drop the oldest lines rather than stall request threads.
    logger = std::make_shared<spdlog::async_logger>("modelgw", sink, spdlog::thread_pool(),
                                                    spdlog::async_overflow_policy::overrun_oldest);
  } else {
    logger = std::make_shared<spdlog::logger>("modelgw", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  }
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

void shutdown() {
  spdlog::shutdown();
}

}  // namespace modelgw::logging
