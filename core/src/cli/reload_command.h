// `modelgw reload`: checks the configuration file, then asks the running
// gateway (found by server.pid_file, or --pid) to load it, with SIGHUP.
#pragma once

#include "cli/arguments.h"

#include <string>

namespace modelgw::cli {

// `config_path`: the file the gateway was started with (--config, else the
// default). Returns the exit code.
int cmd_reload(const Arguments& args, const std::string& config_path);

}  // namespace modelgw::cli
