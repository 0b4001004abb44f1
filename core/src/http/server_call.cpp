#include "http/server_call.h"

#include "http/http_date.h"
#include "http/request_trace.h"
#include "util/ascii.h"

#include <boost/beast/http/status.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace modelgw::http {
namespace {

using util::iequals;

}  // namespace

std::string_view Request::path() const {
  const std::string_view t = target;
  return t.substr(0, t.find('?'));
}

std::string_view Request::query() const {
  const std::string_view t = target;
  const std::size_t q = t.find('?');
  return q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
}

std::string_view Request::header(std::string_view name) const {
  for (const Field& f : fields) {
    if (iequals(f.name, name)) return f.value;
  }
  return {};
}

ServerCall::ServerCall(Request request, std::string request_id, ResponseChannel& channel,
                       net::CancelSignal& hangup, net::Executor executor)
    : request_(std::move(request)),
      request_id_(std::move(request_id)),
      channel_(channel),
      hangup_(hangup),
      executor_(std::move(executor)) {
  // HTTP/1.0 keeps a connection only when it asks to.
  if (request_.version_minor == 0) keep_alive_ = iequals(request_.header("Connection"), "keep-alive");
  trace_ = trace_of(request_);
  access_note_.trace_id = trace_.trace_id;
}

std::int64_t ServerCall::elapsed_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started_)
      .count();
}

void ServerCall::set_header(std::string name, std::string value) {
  erase_header(name);
  // Room for a money-path answer's headers (six x-ratelimit-*, the door's,
  // Retry-After) at once: growing 1, 2, 4, 8 moved every pair three times.
  if (headers_.capacity() == 0) headers_.reserve(kHeadersReserved);
  headers_.emplace_back(std::move(name), std::move(value));
}

void ServerCall::erase_header(std::string_view name) {
  headers_.erase(
      std::remove_if(headers_.begin(), headers_.end(), [&](const auto& h) { return iequals(h.first, name); }),
      headers_.end());
}

void ServerCall::append_head(int status, std::string_view content_type, std::size_t content_length,
                             bool chunked) {
  status_ = status;
  if (channel_.closing()) keep_alive_ = false;
  const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
  out_.reserve(out_.size() + 256 + (chunked ? 0 : content_length));
  out_ += "HTTP/1.1 ";
  out_ += std::to_string(status);
  out_ += ' ';
  out_.append(reason.data(), reason.size());
  out_ += "\r\nDate: ";
  out_ += http_date_now();
  out_ += "\r\nServer: modelgw";
  if (!content_type.empty()) {
    out_ += "\r\nContent-Type: ";
    out_ += content_type;
  }
  if (chunked) {
    out_ += "\r\nTransfer-Encoding: chunked";
  } else if (content_length != std::string::npos) {
    out_ += "\r\nContent-Length: ";
    out_ += std::to_string(content_length);
  }
  out_ += "\r\nX-Request-Id: ";
  out_ += answered_id_.empty() ? request_id_ : answered_id_;
  for (const auto& [name, value] : headers_) {
    out_ += "\r\n";
    out_ += name;
    out_ += ": ";
    out_ += value;
  }
  if (!rate_limits_.empty()) rate_limits_.append_to(out_);
  if (!keep_alive_) {
    out_ += "\r\nConnection: close";
  } else if (request_.version_minor == 0) {
    out_ += "\r\nConnection: keep-alive";
  }
  out_ += "\r\n\r\n";
}

void ServerCall::send_json(int status, std::string_view body) {
  if (answered()) return;  // one answer per request; a second is a handler bug, not the client's
  append_head(status, "application/json", body.size(), false);
  out_.append(body.data(), body.size());
  finished_ = true;
  if (tap_ != nullptr) {
    tap_->on_head(status, false, headers_);
    tap_->on_body(body);
  }
}

void ServerCall::send_text(int status, std::string_view content_type, std::string_view body) {
  if (answered()) return;
  append_head(status, content_type, body.size(), false);
  out_.append(body.data(), body.size());
  finished_ = true;
  if (tap_ != nullptr) {
    tap_->on_head(status, false, headers_);
    tap_->on_body(body);
  }
}

void ServerCall::send_not_modified() {
  if (answered()) return;
  append_head(304, {}, std::string::npos, false);
  finished_ = true;
  if (tap_ != nullptr) {
    tap_->on_head(304, false, headers_);
    tap_->on_body({});
  }
}

void ServerCall::send_object(int status, std::string_view object) {
  std::string body;
  append_with_request_id(body, object, request_id_);
  send_json(status, body);
}

void ServerCall::send_error(const errors::ApiError& error) {
  if (answered()) return;
  if (error.retry_after_s >= 0) set_header("Retry-After", std::to_string(error.retry_after_s));
  // After a refused body (413) the rest of it is unread: where the next
  // request would start is unknown.
  if (error.status == 413 || request_.body_too_large) close_after();
  access_note_.error_code = error.code;
  send_json(error.status, error_writer_(error, request_id_));
}

void ServerCall::start_event_stream() {
  if (answered()) return;
  streaming_ = true;
  set_header("Cache-Control", "no-cache");
  if (request_.version_minor == 0) {
    // No chunked encoding in HTTP/1.0: the stream ends when the connection does.
    close_after();
    chunked_ = false;
    append_head(200, "text/event-stream", std::string::npos, false);
  } else {
    chunked_ = true;
    append_head(200, "text/event-stream", 0, true);
  }
  if (tap_ != nullptr) tap_->on_head(200, true, headers_);
}

void ServerCall::append_chunk(std::string_view data) {
  if (!streaming_ || finished_ || data.empty()) return;
  if (tap_ != nullptr) tap_->on_chunk(data);
  // One allocation for the piece (the buffer is given back between a
  // stream's pieces, see flush()): its size line, its bytes and the CRLF.
  out_.reserve(out_.size() + data.size() + 24);
  if (chunked_) {
    char size[20];
    int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    out_.append(size, static_cast<std::size_t>(n));
    out_.append(data.data(), data.size());
    out_ += "\r\n";
  } else {
    out_.append(data.data(), data.size());
  }
}

void ServerCall::end_chunks() {
  if (!streaming_ || finished_) return;
  if (chunked_) out_ += "0\r\n\r\n";
  finished_ = true;
  if (tap_ != nullptr) tap_->on_end();
}

net::Task<bool> ServerCall::flush() {
  // The hang-up signal fires at the server's shutdown deadline too, when the
  // client may well be reading (its final event is written then).
  if (write_failed_ || (outlives_client_ && hangup_.fired() && !channel_.shut_down())) {
    // Nobody reads any more: drop what was buffered. Work that outlives the
    // client goes on as if it had been written.
    write_failed_ = true;
    out_.clear();
    co_return outlives_client_;
  }
  if (out_.empty()) co_return true;
  // Swapped out first: a handler may buffer more while this write waits.
  std::string pending;
  pending.swap(out_);
  const bool ok = co_await channel_.write(pending);
  if (ok) bytes_written_ += pending.size();
  if (!ok) {
    write_failed_ = true;
    co_return outlives_client_;
  }
  // The buffer goes with the write: a stream waiting for its next event
  // holds none (as its upstream read buffer, net/read_buffer.h), which
  // is most of an open stream's life. One allocation per piece is the price.
  co_return true;
}

}  // namespace modelgw::http
