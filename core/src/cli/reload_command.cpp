#include "cli/reload_command.h"

#include "app/config_loader.h"
#include "cli/pid_file.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

namespace modelgw::cli {

int cmd_reload(const Arguments& args, const std::string& config_path) {
  // A file the gateway would refuse is reported here, where the operator
  // is looking, rather than only in the gateway's log.
  const config::Config config = config::load_file(config_path);
  pid_t pid = 0;
  if (auto given = args.option("pid")) {
    try {
      const long long n = std::stoll(*given);
      if (n <= 0 || n > 0x7fffffff) throw std::out_of_range("pid");
      pid = static_cast<pid_t>(n);
    } catch (const std::exception&) {
      throw UsageError("--pid must be a process id");
    }
  } else if (!config.server.pid_file.empty()) {
    pid = read_pid_file(config.server.pid_file);
  } else {
    throw UsageError("cannot find the gateway: set server.pid_file in " + config_path + " or pass --pid");
  }
  if (::kill(pid, SIGHUP) != 0) {
    std::cerr << "modelgw: cannot signal process " << pid << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::cout << config_path << ": OK; sent SIGHUP to modelgw (pid " << pid
            << "): its log says whether the reload was applied\n";
  return 0;
}

}  // namespace modelgw::cli
