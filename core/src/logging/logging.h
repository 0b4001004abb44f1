#pragma once

#include "logging/access_log.h"
#include "logging/log_line.h"

#include <string>

namespace modelgw::config {
struct LoggingConfig;
}

namespace modelgw::logging {

struct Options {
  std::string level = "info";
  Format format = Format::json;
  bool access_log = true;
  AccessFormat access_format = AccessFormat::json;
};

// The options the `logging` config section asks for (already validated).
Options options_from(const config::LoggingConfig& config);

// Sets up the process logger: one line per event on stderr (journald picks it
// up under systemd). When `async` (serving), lines are queued and written in
// batches by one background thread (line_writer.h), so a slow terminal or
// journal never blocks a request thread; else each is written at once.
void init(const Options& options, bool async);
// Text lines at `level`, no access log: for the command-line tools.
void init(const std::string& level, bool async);
void shutdown();

}  // namespace modelgw::logging
