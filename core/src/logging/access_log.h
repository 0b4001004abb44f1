// The access log: exactly one line per HTTP request, written by the transport
// when the request ends (http/connection.cpp), whatever answered it. For a
// request that went through a chain (chat, responses, messages, embeddings)
// it also says the tokens, the provider attempts and the PII action: it is
// the request's one line. The line is built here in one pass, without a JSON
// document and without spdlog's queue (logging.cpp gives the output).
#pragma once

#include "logging/log_line.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace modelgw::logging {

enum class AccessFormat { json, combined };

struct AccessRecord {
  std::string_view request_id;
  std::string_view method;
  std::string_view path;  // without the query string: its values may hold anything
  int status = 0;
  std::string_view error_code;  // "" for a success
  std::uint64_t bytes = 0;      // written to the client, head included
  std::int64_t duration_us = 0;
  std::string_view tenant;    // its name once authenticated; "" before
  std::string_view alias;     // the model alias asked for
  std::string_view provider;  // the provider that answered last
  std::string_view trace_id;  // filled when tracing is on; "" otherwise
  bool streamed = false;
  bool delivered = true;  // false: the client was gone before the answer reached it
  // Set by a chain when the request ends (-1: no chain ran).
  std::int64_t tokens = -1;
  int attempts = -1;
  std::string_view pii;  // the PII action taken ("" when none)
};

// Where whole lines go (each ends in '\n'); called from any thread.
using LineOutput = std::function<void(std::string_view line)>;

// Set by logging::init before any request (an empty output: no access log).
// `line_format` is the process log's format (logging.format), `format` the
// access line's (logging.access_log_format).
void configure_access_log(LineOutput output, Format line_format, AccessFormat format);
bool access_log_enabled();
// Builds the line and hands it to the output (which queues it: no write on
// the caller's loop).
void write_access(const AccessRecord& record);
// The line write_access would write, without its ending '\n' (for tests).
std::string access_line(const AccessRecord& record, Format line_format, AccessFormat format);

}  // namespace modelgw::logging
