#include "logging/logging.h"

#include "config/config.h"
#include "logging/batched_sink.h"
#include "util/json_text.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <unistd.h>
#include <cstdio>

namespace modelgw::logging {
namespace {

// The serving process's writer (null for the command-line tools).
std::shared_ptr<LineWriter> g_writer;

std::string dropped_line(Format format, std::uint64_t dropped) {
  std::string line;
  append_line_start(line, format, spdlog::level::warn, std::chrono::system_clock::now());
  const std::string message =
      "log lines dropped: stderr did not keep up (" + std::to_string(dropped) + " lines)";
  if (format == Format::json) {
    util::append_json_string(line, message);
    line.push_back('}');
  } else {
    append_text(line, message);
  }
  line.push_back('\n');
  return line;
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
  spdlog::sink_ptr sink;
  if (async) {
    g_writer = std::make_shared<LineWriter>(
        STDERR_FILENO, [format = options.format](std::uint64_t n) { return dropped_line(format, n); });
    sink = std::make_shared<BatchedSink>(g_writer);
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  }
  sink->set_formatter(std::make_unique<LineFormatter>(options.format));
  auto logger = std::make_shared<spdlog::logger>("modelgw", sink);
  logger->set_level(spdlog::level::from_str(options.level));
  logger->flush_on(spdlog::level::warn);  // the writer wakes now rather than within its interval
  spdlog::set_default_logger(std::move(logger));
  LineOutput access;
  if (options.access_log) {
    if (g_writer) {
      access = [writer = g_writer](std::string_view line) { writer->append(line); };
    } else {
      // Synchronous (tools): one fwrite per line, atomic under stdio's lock.
      access = [](std::string_view line) { std::fwrite(line.data(), 1, line.size(), stderr); };
    }
  }
  configure_access_log(std::move(access), options.format, options.access_format);
}

void init(const std::string& level, bool async) {
  Options options;
  options.level = level;
  options.format = Format::text;
  options.access_log = false;
  init(options, async);
}

void shutdown() {
  configure_access_log(nullptr, Format::json, AccessFormat::json);
  spdlog::shutdown();
  if (g_writer) {
    g_writer->stop();  // everything queued is written
    g_writer.reset();
  }
}

}  // namespace modelgw::logging
