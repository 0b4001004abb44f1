// What every route handler needs from the command line and shared state.
#pragma once

#include <string>

#include "request_log.h"

namespace fake_upstream {

struct ServerContext {
  // Exact Authorization value API routes require ("Bearer <key>"); empty
  // when --api-key was not given and any caller is accepted.
  std::string expectedAuthorization;
  RequestLog& log;
};

}  // namespace fake_upstream
