// The access-log line of one call, from what the transport and the handler
// noted on it.
#pragma once

#include "http/server_call.h"

namespace modelgw::http {

// Writes it (when logging.access_log is on); `delivered`: the answer reached
// the client.
void log_access(const ServerCall& call, bool delivered);

}  // namespace modelgw::http
