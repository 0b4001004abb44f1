#include "plugins/host_api.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <string_view>

namespace modelgw::plugins {
namespace {

spdlog::level::level_enum to_spdlog(mgw_log_level level) {
  switch (level) {
    case MGW_LOG_TRACE:
      return spdlog::level::trace;
    case MGW_LOG_DEBUG:
      return spdlog::level::debug;
    case MGW_LOG_INFO:
      return spdlog::level::info;
    case MGW_LOG_WARN:
      return spdlog::level::warn;
    default:
      return spdlog::level::err;
  }
}

// Host callbacks never unwind into the plugin (plugin.h): a log line the
// host fails to write is lost, not thrown.
int32_t log_enabled(void* /*host_data*/, mgw_log_level level) noexcept {
  return spdlog::default_logger_raw()->should_log(to_spdlog(level)) ? 1 : 0;
}

void log(void* host_data, mgw_log_level level, mgw_str message) noexcept {
  try {
    const auto* self = static_cast<const HostApi*>(host_data);
    std::string_view text =
        message.len == 0 ? std::string_view{} : std::string_view{message.ptr, message.len};
    spdlog::default_logger_raw()->log(to_spdlog(level), "[plugin {}] {}", self->plugin_name(), text);
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to tell the plugin
  }
}

int64_t now_unix_ms(void* /*host_data*/) noexcept {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t monotonic_ns(void* /*host_data*/) noexcept {
  using namespace std::chrono;
  return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

HostApi::HostApi(std::string plugin_name) : name_(std::move(plugin_name)) {
  api_.struct_size = sizeof(api_);
  api_.abi_major = MGW_ABI_MAJOR;
  api_.abi_minor = MGW_ABI_MINOR;
  api_.host_data = this;
  api_.callback_log_enabled = &log_enabled;
  api_.callback_log = &log;
  api_.callback_now_unix_ms = &now_unix_ms;
  api_.callback_monotonic_ns = &monotonic_ns;
}

}  // namespace modelgw::plugins
