// One non-blocking keep-alive HTTP/1.1 connection of the closed-loop load:
// it writes a request and reads its response as the bytes come (the head,
// then a Content-Length, chunked or to-the-end body, of which it keeps only
// the start, for an error's reason). It never waits: the load generator's
// epoll loop calls advance() when the socket is ready, as wrk does.
#pragma once

#include "http_wire.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

class LoadConnection {
 public:
  enum class Step { waiting, done, failed };

  explicit LoadConnection(std::uint16_t port);
  ~LoadConnection();
  LoadConnection(const LoadConnection&) = delete;
  LoadConnection& operator=(const LoadConnection&) = delete;

  // Connects (a blocking connect: on loopback it succeeds or fails at once),
  // then makes the socket non-blocking. False with error() set on failure.
  bool open();
  void close();
  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }

  // Starts a request; `request` must stay alive until it is done or failed.
  // Writes what the socket takes at once (the answer is read on advance()).
  Step start(std::string_view request);
  // Writes what is left of the request, then reads what has come of the
  // answer. `done` once the whole answer is in; `failed` with error() set.
  Step advance();

  int status() const { return head_ ? head_->status : 0; }
  // The server said "Connection: close" (or HTTP/1.0): open() again.
  bool server_closes() const { return head_ && head_->close; }
  const std::string& body_start() const { return body_start_; }  // up to 160 bytes, for errors
  const std::string& error() const { return error_; }

 private:
  Step fail(std::string reason);
  Step read();
  Step consume();  // parses what buf_ holds: done once the answer is complete

  std::uint16_t port_;
  int fd_ = -1;
  std::string_view request_;
  std::size_t sent_ = 0;
  std::vector<char> buf_;
  std::size_t begin_ = 0;  // unread bytes are buf_[begin_, end_)
  std::size_t end_ = 0;
  std::optional<ResponseHead> head_;
  std::uint64_t body_left_ = 0;  // Content-Length framing
  bool to_end_ = false;          // no framing: the body runs to the end of the connection
  std::optional<ChunkedDecoder> chunked_;
  std::string scratch_;     // chunked data, dropped after each piece
  std::string body_start_;  // the body's first bytes
  std::string error_;
};

}  // namespace bench
