// One HTTP/1.1 request and its response over a pooled upstream connection, on
// the caller's event loop: send, read the head within the first-byte timeout
// (interim 1xx responses skipped, all inside that same deadline), then the
// body whole or piece by piece, all within the total timeout. The response's
// framing is checked strictly (RFC 9112): a malformed one fails as io and its
// connection is never reused. When `client_gone` fires the call is dropped at
// once and fails as cancelled.
//
// Memory: no buffer lives in the object between reads. Waiting for the head or
// for a stream's next piece on plain TCP holds no read buffer (the socket's
// readiness is awaited first, then a buffer sized to what arrived is read
// into); only the bytes of a split chunk-size line or head may stay pending.
// Over TLS the read waits with a 4 KiB buffer, on top of the TLS stream's own
// record buffers (Asio keeps two of 17 KiB per connection).
#pragma once

#include "net/asio.h"
#include "net/cancel_signal.h"
#include "net/read_buffer.h"
#include "upstream/failure.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::upstream {

class UpstreamPool;
class UpstreamConnection;
class ResponseParser;

class UpstreamCall {
 public:
  UpstreamCall(UpstreamPool& pool, Timeouts timeouts, std::size_t max_response_bytes,
               net::CancelSignal* client_gone /*nullable*/);
  // The connection goes back to the pool only if the body was read to its end
  // and keep-alive holds.
  ~UpstreamCall();
  UpstreamCall(const UpstreamCall&) = delete;
  UpstreamCall& operator=(const UpstreamCall&) = delete;

  // Sends the request and reads the response head. A pooled connection the
  // server closed while idle is retried once on a fresh connection when
  // nothing of the response arrived. Throws UpstreamFailure.
  net::Task<void> start(const OutgoingRequest& request);

  int status() const;  // as sent, e.g. 529 too
  const std::vector<std::pair<std::string, std::string>>& headers() const;

  // The whole body within the total timeout; too_large past max_response_bytes.
  net::Task<std::string> read_all();
  // The next piece of the body as it arrives (valid until the next call);
  // empty at the end. Each piece within the first-byte timeout, all within the
  // total; too_large once the total relayed passes max_response_bytes.
  net::Task<std::string_view> read_some();
  // Drops the connection now.
  void abort();

 private:
  struct Alarm;
  enum class Step { piece, need_more, done };
  enum class Phase { head, body, piece };

  // Parses what is buffered: true once the head is complete.
  bool parse_head();
  // Parses what is buffered up to the next body piece.
  Step parse(std::string_view& piece);
  // Reads more bytes into the buffer before `until`. Throws on timeout and
  // cancellation; returns the read's error (eof at the end of the stream).
  // `stream`: wait for readiness first, so waiting holds no buffer.
  net::Task<boost::system::error_code> fill(std::chrono::steady_clock::time_point until, Phase phase,
                                            bool stream);
  void arm(std::chrono::steady_clock::time_point until);
  void disarm();
  void end_of_stream();
  [[noreturn]] void fail(FailureKind kind, const std::string& message);
  [[noreturn]] void fail_io(const boost::system::error_code& ec, Phase phase);
  std::string timeout_message(Phase phase) const;
  std::string serialize_head(const OutgoingRequest& request) const;
  void drop();

  UpstreamPool& pool_;
  Timeouts timeouts_;
  std::size_t max_response_bytes_;
  net::CancelSignal* client_gone_;
  bool cancelled_ = false;
  std::unique_ptr<UpstreamConnection> connection_;
  std::unique_ptr<ResponseParser> parser_;
  net::ReadBuffer buffer_;
  std::shared_ptr<Alarm> alarm_;
  std::optional<net::SteadyTimer> timer_;
  std::optional<std::chrono::steady_clock::time_point> armed_until_;
  std::chrono::steady_clock::time_point deadline_;  // of the whole exchange
  std::chrono::steady_clock::time_point until_;     // of the current wait (head, or a stream's piece)
  std::uint64_t relayed_ = 0;
  std::size_t received_ = 0;  // bytes of the response read so far
  bool head_request_ = false;
  bool failed_ = false;
  bool in_io_ = false;  // an operation on the connection is pending
  // Last: connected once everything it touches exists, disconnected first.
  net::ScopedSlot on_client_gone_;
};

}  // namespace modelgw::upstream
