// The sinks of the strict fake host. Each one serves a single hook call: it
// checks every callback against the ABI's rules as it happens (reporting a
// problem, never throwing: host callbacks never unwind), records what the
// plugin emitted, and when the hook returns it is closed but kept alive, so
// that a plugin calling it later is reported instead of corrupting memory.
#pragma once

#include "strict_host.h"

#include <modelgw/plugin.h>

#include "json_compare.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mgw::testkit {

struct ErrorSeen {
  int http_status = 0;
  std::string code;
  std::string message;
  std::string param;
  bool retryable = false;
  std::int64_t retry_after_ms = -1;
};

// One thing a plugin emitted through a response sink.
struct Emitted {
  enum class Kind { body, chunk, usage, error };
  Kind kind = Kind::body;
  std::string text;                  // body or chunk
  std::shared_ptr<const Json> json;  // the body or chunk parsed, when it is a JSON object
  mgw_usage usage{};
  ErrorSeen error;
};

// Everything one response produced, in order: a whole response, a refusal
// from on_build_request, or a stream across all of its hook calls.
struct ResponseLog {
  std::vector<Emitted> events;
  bool failed() const;
  std::size_t count(Emitted::Kind kind) const;
  const ErrorSeen* error() const;  // the first error, if any
};

// What a response sink is for: each accepts different callbacks.
enum class SinkUse {
  build_error,     // on_build_request's `error`: callback_error only
  parse_response,  // usage then body, or error
  stream,          // chunks, usage, error
};

class ResponseSink {
 public:
  ResponseSink(ResponseLog& log, SinkUse use, std::string hook, const HostShape& shape);
  ~ResponseSink();  // closes it
  ResponseSink(const ResponseSink&) = delete;
  ResponseSink& operator=(const ResponseSink&) = delete;
  const mgw_response_sink* get() const;

  struct Slot;

 private:
  Slot* slot_;
};

// What on_build_request sent through the request sink.
struct RequestLog {
  std::optional<std::string> method;
  std::optional<std::string> path;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::string> body;
};

class RequestSink {
 public:
  RequestSink(RequestLog& log, std::string hook, const HostShape& shape);
  ~RequestSink();
  RequestSink(const RequestSink&) = delete;
  RequestSink& operator=(const RequestSink&) = delete;
  const mgw_request_sink* get() const;

  struct Slot;

 private:
  Slot* slot_;
};

// One parameter a provider declared through on_provider_parameters (ABI 1.4).
struct ParamSeen {
  std::string name;
  int handling = 0;  // MGW_PARAM_MAPPED, _DROPPED or _REFUSED
  std::string target;
  double min = 1;
  double max = 0;
};

// The sink of on_provider_parameters (ABI 1.4).
class ParamSink {
 public:
  ParamSink(std::vector<ParamSeen>& params, std::string hook, const HostShape& shape);
  ~ParamSink();
  ParamSink(const ParamSink&) = delete;
  ParamSink& operator=(const ParamSink&) = delete;
  const mgw_param_sink* get() const;

  struct Slot;

 private:
  Slot* slot_;
};

class TextSink {
 public:
  // Each callback_text appended to `text`.
  TextSink(std::string& text, std::string hook);
  // Each callback_text one entry of `texts` (on_provider_operations).
  TextSink(std::vector<std::string>& texts, std::string hook);
  ~TextSink();
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;
  const mgw_text_sink* get() const;

  struct Slot;

 private:
  Slot* slot_;
};

}  // namespace mgw::testkit
