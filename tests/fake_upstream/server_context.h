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
  // The --api-key value itself, which Anthropic routes expect in x-api-key
  // and Gemini routes in x-goog-api-key; empty when not given.
  std::string apiKey;
};

}  // namespace fake_upstream
