// HTTP/1.1 framing for the benchmark's clients: request bytes, response heads,
// and an incremental chunked-transfer decoder. No I/O here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bench {

// A complete request: POST with a JSON body, or GET without one.
// `extra_headers` are whole lines ("Name: value\r\n" each), for the APIs
// that authenticate otherwise (Anthropic's x-api-key).
std::string build_request(std::string_view method, std::string_view path, std::string_view bearer,
                          std::string_view body, std::string_view extra_headers = {});

struct ResponseHead {
  int status = 0;
  std::optional<std::uint64_t> content_length;
  bool chunked = false;
  bool close = false;  // "Connection: close": the server ends the connection after this response
};

// Finds the end of the head ("\r\n\r\n") in `data`; returns its length
// including the blank line, or 0 if the head is not complete yet.
std::size_t head_length(std::string_view data);

// Parses a head (status line and headers). nullopt if it is not HTTP/1.x.
std::optional<ResponseHead> parse_head(std::string_view head);

// Decodes a chunked body fed in pieces of any size. Decoded bytes are
// appended to `out`; done() turns true after the last chunk and its trailer.
class ChunkedDecoder {
 public:
  // Consumes as much of `data` as belongs to this body and returns how many
  // bytes that was (less than data.size() only once done()). Sets failed()
  // on a malformed size line.
  std::size_t feed(std::string_view data, std::string& out);
  bool done() const { return state_ == State::done; }
  bool failed() const { return state_ == State::failed; }

 private:
  enum class State { size_line, data, data_crlf, trailer, done, failed };
  State state_ = State::size_line;
  std::string line_;
  std::uint64_t left_ = 0;
};

}  // namespace bench
