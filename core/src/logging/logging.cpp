#include "logging/logging.h"

#include "config/config.h"

#include <spdlog/async.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace modelgw::logging {
namespace {

std::shared_ptr<spdlog::logger> make_logger(const std::string& name, spdlog::sink_ptr sink, bool async) {
  if (async) {
    // Under overload, drop the oldest lines rather than stall request threads.
    return std::make_shared<spdlog::async_logger>(name, std::move(sink), spdlog::thread_pool(),
                                                  spdlog::async_overflow_policy::overrun_oldest);
  }
  return std::make_shared<spdlog::logger>(name, std::move(sink));
}

}  // namespace

Options options_from(const config::LoggingConfig& config) {
  Options o;
  o.level = config.level;
  o.format = config.format == "text" ? Format::text : Format::json;
  o.access_log = config.access_log;
  o.access_format = config.access_log_format == "combined" ? AccessFormat::combined : AccessFormat::json;
  return o;
}

void init(const Options& options, bool async) {
  if (async) spdlog::init_thread_pool(16384, 1);
  // One sink for both loggers: their lines never interleave mid-line.
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_formatter(std::make_unique<LineFormatter>(options.format));
  auto logger = make_logger("modelgw", sink, async);
  logger->set_level(spdlog::level::from_str(options.level));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
  std::shared_ptr<spdlog::logger> access;
  if (options.access_log) {
    access = make_logger("access", sink, async);
    access->set_level(spdlog::level::info);
  }
  configure_access_log(std::move(access), options.access_format);
}

void init(const std::string& level, bool async) {
  Options options;
  options.level = level;
  options.format = Format::text;
  options.access_log = false;
  init(options, async);
}

void shutdown() {
  configure_access_log(nullptr, AccessFormat::json);
  spdlog::shutdown();
}

}  // namespace modelgw::logging
