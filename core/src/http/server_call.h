// One client request as a handler sees it, on the event-loop engine: the
// request (head and whole body, read and checked by the transport), its
// request_id, and the answer. Whole answers and stream pieces are buffered;
// flush() writes them, and the transport flushes what is left when the
// handler returns. Everything here runs on the connection's loop, except that
// a handler may fill the answer from the blocking pool while its coroutine
// waits for it (the loop does not touch the call meanwhile).
#pragma once

#include "errors/api_error.h"
#include "http/rate_limit_fields.h"
#include "http/request_id.h"
#include "net/asio.h"
#include "net/cancel_signal.h"
#include "trace/trace_context.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::http {

struct Field {
  std::string name;  // as sent
  std::string value;
};

struct Request {
  std::string method;
  std::string target;     // origin-form, as sent: path and query
  int version_minor = 1;  // HTTP/1.0 or HTTP/1.1
  std::vector<Field> fields;
  std::string body;  // whole; empty when body_too_large
  // The client's address (the audit log counts rejected credentials by it).
  net::asio::ip::address remote_address;
  // The body was longer than server.max_body_bytes: it was not read (the
  // handler answers 413 and the connection closes after the answer).
  bool body_too_large = false;

  std::string_view path() const;   // target up to '?'
  std::string_view query() const;  // after '?', "" when none
  // The value of a header (name compared case-insensitively); "" when absent.
  // The transport refuses duplicates of the headers that must be single.
  std::string_view header(std::string_view name) const;
};

// The write side of one connection, implemented by the transport.
class ResponseChannel {
 public:
  virtual ~ResponseChannel() = default;
  // Writes `bytes` to the client within the send timeout; false when the
  // client is gone (or did not read in time): nothing more can be sent.
  virtual net::Task<bool> write(std::string_view bytes) = 0;
  // True when the server is stopping: answers say `Connection: close`.
  virtual bool closing() const { return false; }
  // True when the server ended the running call at its shutdown deadline:
  // the client is still there and is owed a final error (not a cut).
  virtual bool shut_down() const { return false; }
};

// Sees every answer a call buffers, as it is buffered (idempotency keeps it
// for replay and shows it to duplicates waiting on it). Runs on the call's loop.
class ResponseTap {
 public:
  virtual ~ResponseTap() = default;
  // The head: status, whether an event stream follows, the handler's header
  // fields (not Date, Content-Type, Content-Length, X-Request-Id, Connection).
  virtual void on_head(int status, bool stream,
                       const std::vector<std::pair<std::string, std::string>>& headers) = 0;
  virtual void on_body(std::string_view body) = 0;   // a whole answer's body
  virtual void on_chunk(std::string_view data) = 0;  // one piece of a stream
  virtual void on_end() = 0;                         // the stream ended normally
};

// What handlers tell the access log about a call beyond what the transport
// sees (http/connection.cpp writes the line when the call ends).
struct AccessNote {
  std::string tenant;      // the tenant's name, once authenticated
  std::string alias;       // chat: the model alias asked for
  std::string provider;    // chat: the provider that answered last
  std::string trace_id;    // the trace this call belongs to, when tracing is on
  std::string error_code;  // the error answered (send_error sets it; a stream's error too)
  // Set by a chain when it records the request (chat/record.cpp); -1: none ran.
  std::int64_t tokens = -1;
  int attempts = -1;
  std::string pii;  // the PII action taken, "" when none
};

class ServerCall {
 public:
  ServerCall(Request request, std::string request_id, ResponseChannel& channel, net::CancelSignal& hangup,
             net::Executor executor);

  const Request& request() const { return request_; }
  const std::string& request_id() const { return request_id_; }
  // The W3C trace this call is served under (the client's traceparent, or a
  // new trace), decided when the call is made.
  const trace::RequestTrace& trace() const { return trace_; }
  std::chrono::steady_clock::time_point started() const { return started_; }
  std::int64_t elapsed_us() const;
  net::Executor executor() const { return executor_; }

  // Header fields of the next answer's head (X-Dropped-Params, Allow, Retry-After...).
  void set_header(std::string name, std::string value);
  void erase_header(std::string_view name);
  // The x-ratelimit-* fields of the next answer's head: each admission's
  // standing replaces the earlier one's of the same kind.
  void set_rate_limits(const RateLimitFields& fields) { rate_limits_.update(fields); }
  // Shows what is answered to `tap` too (it must outlive the answer).
  void set_tap(ResponseTap* tap) { tap_ = tap; }
  // The work goes on when the client leaves: the exchange upstream finishes
  // (for a response another request will replay), writes are dropped, and
  // client_gone() stays false. The server's shutdown deadline still ends it.
  void outlive_client() { outlives_client_ = true; }
  bool outlives_client() const { return outlives_client_; }
  // The call may not go on without its client after all (too many of the
  // tenant's do): it ends as one whose client left, and ended() fires.
  void stop_outliving() {
    outlives_client_ = false;
    ended_.emit();
  }
  // What stops work: the client leaving or the server ending the call; for
  // work that outlives its client, the server ending the call only.
  net::CancelSignal* client_gone_signal() { return outlives_client_ ? &ended_ : &hangup_; }
  // Fired by the server alone (its shutdown deadline, closing the
  // connection), never by the client leaving.
  net::CancelSignal& ended() { return ended_; }
  // The request_id the answer's head names (a replay names the original's).
  void answer_as(std::string request_id) { answered_id_ = std::move(request_id); }

  // Answer with `Connection: close` and close the connection after it.
  void close_after() { keep_alive_ = false; }
  bool keep_alive() const { return keep_alive_; }

  // A whole answer (Content-Length), buffered until flush().
  void send_json(int status, std::string_view body);
  // The same with another Content-Type (GET /metrics' text format).
  void send_text(int status, std::string_view content_type, std::string_view body);
  // 304 Not Modified: a head alone, with neither Content-Type nor
  // Content-Length (RFC 9110 8.6: a length there must be the 200's).
  void send_not_modified();
  // A JSON object answer with this call's request_id added as its first member.
  void send_object(int status, std::string_view object);
  // The error envelope (with Retry-After when the error has one; 413 and
  // request-framing errors close the connection).
  void send_error(const errors::ApiError& error);
  // How send_error writes its body on this call: the spec's envelope
  // (errors::error_envelope) unless a front door speaking another API's
  // errors (Anthropic's, errors/anthropic_error.h) sets its own at routing.
  using ErrorWriter = std::string (*)(const errors::ApiError&, std::string_view request_id);
  void set_error_writer(ErrorWriter writer) { error_writer_ = writer; }
  ErrorWriter error_writer() const { return error_writer_; }

  // An event stream: a 200 head with chunked encoding and SSE headers...
  void start_event_stream();
  // ...then pieces, each one HTTP chunk...
  void append_chunk(std::string_view data);
  // ...then the last chunk.
  void end_chunks();

  // Writes everything buffered. False when the client is gone.
  net::Task<bool> flush();

  AccessNote& access_note() { return access_note_; }
  const AccessNote& access_note() const { return access_note_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

  int status_sent() const { return status_; }  // 0 until an answer's head was buffered
  bool answered() const { return status_ != 0; }
  bool streaming() const { return streaming_; }
  bool finished() const { return finished_; }  // a whole answer, or a stream's last chunk

  // Fires (on this loop) when the client hangs up while the handler works.
  net::CancelSignal& hangup() { return hangup_; }
  // The hang-up signal also fires when the server ends the call at its
  // shutdown deadline; the client is not gone then (see shut_down()).
  bool client_gone() const {
    return !outlives_client_ && ((hangup_.fired() && !channel_.shut_down()) || write_failed_);
  }
  // The server ended this call at its shutdown deadline: answer (or end the
  // stream with) a 503 `shutting_down`.
  bool shut_down() const { return channel_.shut_down(); }

 private:
  void append_head(int status, std::string_view content_type, std::size_t content_length, bool chunked);

  Request request_;
  std::string request_id_;
  ResponseChannel& channel_;
  net::CancelSignal& hangup_;
  net::CancelSignal ended_;
  net::Executor executor_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  static constexpr std::size_t kHeadersReserved = 8;
  std::vector<std::pair<std::string, std::string>> headers_;
  RateLimitFields rate_limits_;
  std::string out_;  // buffered, not yet written
  int status_ = 0;
  bool keep_alive_ = true;
  bool streaming_ = false;
  bool chunked_ = false;  // false: an HTTP/1.0 stream, ended by closing
  bool finished_ = false;
  bool write_failed_ = false;
  bool outlives_client_ = false;
  ResponseTap* tap_ = nullptr;
  ErrorWriter error_writer_ = &errors::error_envelope;
  std::string answered_id_;  // empty: request_id_
  AccessNote access_note_;
  std::uint64_t bytes_written_ = 0;
  trace::RequestTrace trace_;
};

// The handler the transport calls for each request (the router).
class Handler {
 public:
  virtual ~Handler() = default;
  virtual net::Task<void> handle(ServerCall& call) = 0;
};

}  // namespace modelgw::http
