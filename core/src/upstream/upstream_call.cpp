#include "upstream/upstream_call.h"

#include "http/field_rules.h"
#include "upstream/response_parser.h"
#include "upstream/upstream_connection.h"
#include "upstream/upstream_pool.h"
#include "util/ascii.h"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cctype>

namespace modelgw::upstream {
namespace {

namespace asio = net::asio;
namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using ErrorCode = boost::system::error_code;

constexpr std::size_t kStreamReadMax = 64 * 1024;
constexpr std::size_t kStreamReadMin = 512;
constexpr std::size_t kBodyRead = 64 * 1024;
constexpr std::size_t kTlsStreamRead = 4 * 1024;
// A response head and, often, the whole of a short answer after it.
constexpr std::size_t kHeadRead = 4 * 1024;

using util::iequals;

// Headers the call writes itself, from the pool and the body: a caller's copy
// could contradict the framing.
bool owned_by_the_call(std::string_view name) {
  for (std::string_view own :
       {"host", "content-length", "transfer-encoding", "connection", "proxy-authorization"}) {
    if (iequals(name, own)) return true;
  }
  return false;
}

// What a kept-alive connection the server closed meanwhile fails with.
bool stale_connection_error(const ErrorCode& ec) {
  return ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted;
}

std::string ms(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + " ms";
}

}  // namespace

struct UpstreamCall::Alarm {
  std::uint64_t generation = 0;
  bool rang = false;
  UpstreamConnection* connection = nullptr;
};

UpstreamCall::UpstreamCall(UpstreamPool& pool, Timeouts timeouts, std::size_t max_response_bytes,
                           net::CancelSignal* client_gone)
    : pool_(pool),
      timeouts_(timeouts),
      max_response_bytes_(max_response_bytes),
      client_gone_(client_gone),
      alarm_(std::make_shared<Alarm>()),
      on_client_gone_(client_gone, [this] {
        cancelled_ = true;
        if (connection_) connection_->cancel();
      }) {}

UpstreamCall::~UpstreamCall() {
  disarm();
  alarm_->connection = nullptr;
  if (!connection_) return;
  const bool reusable = !failed_ && !cancelled_ && parser_ && parser_->is_done() && parser_->keep_alive() &&
                        buffer_.pending().empty();
  if (reusable) {
    connection_->mark_reused();
    pool_.release(std::move(connection_));
  } else {
    pool_.discard(std::move(connection_));
  }
}

int UpstreamCall::status() const {
  return parser_ ? parser_->status() : 0;
}

const std::vector<std::pair<std::string, std::string>>& UpstreamCall::headers() const {
  static const std::vector<std::pair<std::string, std::string>> none;
  return parser_ ? parser_->headers() : none;
}

void UpstreamCall::arm(Clock::time_point until) {
  if (armed_until_ == until) return;
  armed_until_ = until;
  alarm_->rang = false;
  const auto generation = ++alarm_->generation;
  timer_->expires_at(until);
  timer_->async_wait([alarm = alarm_, generation](const ErrorCode& ec) {
    // A stale expiry (re-armed or disarmed since) must not touch the connection.
    if (ec || alarm->generation != generation) return;
    alarm->rang = true;
    if (alarm->connection) alarm->connection->cancel();
  });
}

void UpstreamCall::disarm() {
  ++alarm_->generation;
  armed_until_.reset();
  if (timer_) timer_->cancel();
}

void UpstreamCall::drop() {
  disarm();
  alarm_->connection = nullptr;
  if (connection_) pool_.discard(std::move(connection_));
  buffer_.clear();
}

void UpstreamCall::fail(FailureKind kind, const std::string& message) {
  failed_ = true;
  drop();
  throw UpstreamFailure(kind, message);
}

std::string UpstreamCall::timeout_message(Phase phase) const {
  const std::string& where = pool_.where();
  if (phase == Phase::body || until_ >= deadline_) {
    return "the response from " + where + " took longer than " + ms(timeouts_.total);
  }
  if (phase == Phase::head) return "no response from " + where + " within " + ms(timeouts_.first_byte);
  return "the stream from " + where + " sent nothing for " + ms(timeouts_.first_byte);
}

void UpstreamCall::fail_io(const ErrorCode& ec, Phase phase) {
  if (cancelled_)
    fail(FailureKind::cancelled, "the client hung up while " + pool_.where() + " was answering");
  if (alarm_->rang) fail(FailureKind::timeout, timeout_message(phase));
  const char* what = phase == Phase::head ? "its response head" : "the response";
  fail(FailureKind::io,
       "the connection to " + pool_.where() + " broke while reading " + what + ": " + ec.message());
}

std::string UpstreamCall::serialize_head(const OutgoingRequest& request) const {
  const auto& url = pool_.url();
  // The provider's request was checked as it was built (chat/plugin_sinks);
  // these checks keep the wire safe for any other caller.
  if (!::modelgw::http::is_token(request.method)) {
    throw UpstreamFailure(FailureKind::io, "the request method is not a valid token");
  }
  std::string target = pool_.target_prefix() + url.base_path + request.path;
  if (target.empty()) target = "/";
  if (!::modelgw::http::is_request_target_text(target)) {
    throw UpstreamFailure(FailureKind::io, "the request path has a forbidden character");
  }
  std::size_t size = request.method.size() + target.size() + pool_.host_header().size() + 64;
  for (const auto& [name, value] : request.headers) size += name.size() + value.size() + 4;
  std::string head;
  head.reserve(size);
  head.append(request.method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ");
  head.append(pool_.host_header()).append("\r\n");
  for (const auto& [name, value] : request.headers) {
    if (!::modelgw::http::is_token(name))
      throw UpstreamFailure(FailureKind::io, "a request header name is not a valid token");
    // The name only: values may be credentials.
    if (!::modelgw::http::is_field_value(value)) {
      throw UpstreamFailure(FailureKind::io, "the request header '" + name + "' has a forbidden character");
    }
    if (owned_by_the_call(name)) continue;
    head.append(name).append(": ").append(value).append("\r\n");
  }
  if (!pool_.proxy_authorization().empty()) {
    head.append("Proxy-Authorization: ").append(pool_.proxy_authorization()).append("\r\n");
  }
  if (!request.body.empty() || (request.method != "GET" && request.method != "HEAD")) {
    head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  }
  head.append("\r\n");
  return head;
}

net::Task<void> UpstreamCall::start(const OutgoingRequest& request) {
  if (cancelled_) fail(FailureKind::cancelled, "the client hung up before " + pool_.where() + " was called");
  timer_.emplace(co_await asio::this_coro::executor);
  head_request_ = request.method == "HEAD";
  const std::string head = serialize_head(request);
  deadline_ = Clock::now() + timeouts_.total;
  for (int attempt = 0; attempt < 2; ++attempt) {
    connection_ = co_await pool_.acquire(client_gone_, /*fresh=*/attempt > 0);
    alarm_->connection = connection_.get();
    const bool retry_allowed = attempt == 0 && connection_->reused();
    received_ = 0;
    parser_ = std::make_unique<ResponseParser>(head_request_);
    // One deadline for sending and for the whole head, interim responses
    // included: a vendor that answers 100 Continue forever still times out.
    until_ = std::min(Clock::now() + timeouts_.first_byte, deadline_);
    arm(until_);
    ErrorCode ec;
    in_io_ = true;
    co_await connection_->write({asio::buffer(head), asio::buffer(request.body)}, ec);
    in_io_ = false;
    if (ec) {
      if (retry_allowed && !cancelled_ && !alarm_->rang && stale_connection_error(ec)) {
        drop();
        continue;
      }
      fail_io(ec, Phase::head);
    }
    bool retry = false;
    // Bounded by until_: every round parses what arrived or reads more.
    while (true) {
      if (parse_head()) {
        if (!parser_->interim()) break;
        parser_ = std::make_unique<ResponseParser>(head_request_);
        continue;
      }
      ec = co_await fill(until_, Phase::head, /*stream=*/true);
      if (!ec) continue;
      if (retry_allowed && received_ == 0 && stale_connection_error(ec)) {
        retry = true;
        break;
      }
      if (ec == asio::error::eof) {
        fail(FailureKind::io, pool_.where() + " closed the connection before the end of its response head");
      }
      fail_io(ec, Phase::head);
    }
    if (retry) {
      drop();
      continue;
    }
    buffer_.release_if_empty();
    co_return;
  }
}

bool UpstreamCall::parse_head() {
  // Bounded: each round consumes bytes or returns.
  while (!parser_->is_header_done()) {
    const std::string_view in = buffer_.pending();
    if (in.empty()) return false;
    ErrorCode ec;
    const std::size_t n = parser_->feed(in, ec);
    buffer_.consume(n);
    if (ec == http::error::need_more) return false;
    if (ec)
      fail(FailureKind::io, "the response head from " + pool_.where() + " is malformed: " + ec.message());
    if (n == 0 && !parser_->is_header_done()) return false;
  }
  return true;
}

UpstreamCall::Step UpstreamCall::parse(std::string_view& piece) {
  // Each round moves the parser one step (a chunk-size line, a piece of body);
  // rounds without progress are bounded.
  int stalls = 0;
  while (true) {
    if (parser_->is_done()) return Step::done;
    const std::string_view in = buffer_.pending();
    if (in.empty()) return Step::need_more;
    ErrorCode ec;
    const std::size_t n = parser_->feed(in, ec);
    buffer_.consume(n);
    if (ec == http::error::need_more) return Step::need_more;
    if (ec)
      fail(FailureKind::io, "the response body from " + pool_.where() + " is malformed: " + ec.message());
    if (!parser_->piece().empty()) {
      piece = parser_->piece();
      return Step::piece;
    }
    if (n == 0 && ++stalls > 4) {
      fail(FailureKind::io, "the response body from " + pool_.where() + " could not be parsed");
    }
  }
}

net::Task<ErrorCode> UpstreamCall::fill(Clock::time_point until, Phase phase, bool stream) {
  if (cancelled_)
    fail(FailureKind::cancelled, "the client hung up while " + pool_.where() + " was answering");
  if (Clock::now() >= until || (armed_until_ == until && alarm_->rang))
    fail(FailureKind::timeout, timeout_message(phase));
  arm(until);
  ErrorCode ec;
  in_io_ = true;
  if (stream && phase != Phase::head && buffer_.pending().empty()) {
    // Between a stream's events: wait without a buffer, then read what arrived.
    buffer_.release_if_empty();
    co_await connection_->wait_readable(ec);
  }
  if (!ec) {
    std::size_t want = kBodyRead;
    if (phase == Phase::head) {
      // Read, not waited for: Asio 1.74 re-arms the descriptor (epoll_ctl)
      // for every readiness wait, never for a read. The small buffer is held
      // while the vendor prepares its answer, once per call.
      want = kHeadRead;
    } else if (stream) {
      want = connection_->tls() ? kTlsStreamRead
                                : std::clamp(connection_->available(), kStreamReadMin, kStreamReadMax);
    }
    const std::size_t n = co_await connection_->read_some(buffer_.prepare(want), ec);
    buffer_.commit(n);
    received_ += n;
  }
  in_io_ = false;
  if (cancelled_)
    fail(FailureKind::cancelled, "the client hung up while " + pool_.where() + " was answering");
  if (alarm_->rang) fail(FailureKind::timeout, timeout_message(phase));
  if (!connection_ || failed_) fail(FailureKind::cancelled, "the call to " + pool_.where() + " was aborted");
  co_return ec;
}

void UpstreamCall::end_of_stream() {
  ErrorCode ec;
  parser_->put_eof(ec);
  if (ec) fail(FailureKind::io, pool_.where() + " closed the connection before the end of its response");
}

net::Task<std::string> UpstreamCall::read_all() {
  if (!parser_ || failed_) fail(FailureKind::io, "no response to read from " + pool_.where());
  std::string out;
  const std::uint64_t allowed = max_response_bytes_ > relayed_ ? max_response_bytes_ - relayed_ : 0;
  // The length, when the head gave one, is known with the first piece: checked
  // then, and the whole reserved at once.
  bool reserved = false;
  // Bounded by the total deadline: every round appends, ends, or reads more.
  while (true) {
    std::string_view piece;
    const Step step = parse(piece);
    if (step == Step::done) break;
    if (step == Step::piece) {
      if (!reserved) {
        reserved = true;
        if (const auto length = parser_->body_length(); length && *length > allowed) {
          fail(FailureKind::too_large, "the response from " + pool_.where() + " exceeds " +
                                           std::to_string(max_response_bytes_) + " bytes");
        } else if (length) {
          out.reserve(static_cast<std::size_t>(*length));
        }
      }
      if (out.size() + piece.size() > allowed) {
        fail(FailureKind::too_large, "the response from " + pool_.where() + " exceeds " +
                                         std::to_string(max_response_bytes_) + " bytes");
      }
      out.append(piece);
      continue;
    }
    const ErrorCode ec = co_await fill(deadline_, Phase::body, /*stream=*/false);
    if (ec == asio::error::eof) {
      end_of_stream();
    } else if (ec) {
      fail_io(ec, Phase::body);
    }
  }
  relayed_ += out.size();
  disarm();
  buffer_.release_if_empty();
  co_return out;
}

net::Task<std::string_view> UpstreamCall::read_some() {
  if (!parser_ || failed_) fail(FailureKind::io, "no response to read from " + pool_.where());
  if (cancelled_)
    fail(FailureKind::cancelled, "the client hung up while " + pool_.where() + " was answering");
  buffer_.release_if_empty();  // the previous piece is no longer needed
  until_ = std::min(Clock::now() + timeouts_.first_byte, deadline_);
  // Bounded by until_: every round returns a piece, ends, or reads more.
  while (true) {
    std::string_view piece;
    const Step step = parse(piece);
    if (step == Step::done) {
      disarm();
      buffer_.release_if_empty();
      co_return std::string_view();
    }
    if (step == Step::piece) {
      relayed_ += piece.size();
      if (relayed_ > max_response_bytes_) {
        fail(FailureKind::too_large, "the stream from " + pool_.where() + " exceeds " +
                                         std::to_string(max_response_bytes_) + " bytes");
      }
      co_return piece;
    }
    const ErrorCode ec = co_await fill(until_, Phase::piece, /*stream=*/true);
    if (ec == asio::error::eof) {
      end_of_stream();
    } else if (ec) {
      fail_io(ec, Phase::piece);
    }
  }
}

void UpstreamCall::abort() {
  failed_ = true;
  if (!connection_) return;
  if (in_io_) {
    // The pending operation completes with an error and drops the connection.
    alarm_->connection = nullptr;
    connection_->close();
    return;
  }
  drop();
}

}  // namespace modelgw::upstream
