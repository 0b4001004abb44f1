#pragma once

#include <string>

namespace modelgw::logging {

// Sets up the process logger: one line per event on stderr (journald picks it
// up under systemd), written by a background thread so a slow terminal or
// journal never blocks a request thread.
void init(const std::string& level, bool async);
void shutdown();

}  // namespace modelgw::logging
