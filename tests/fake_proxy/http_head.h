// HTTP/1.x message heads: reading one off a socket and parsing request and
// response heads, strictly enough that bad input gets a 400 instead of
// undefined behaviour. The raw bytes are kept by the caller, so a relayed head
// goes out exactly as it came in.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "buffered_socket.h"

namespace fake_proxy {

struct Header {
  std::string name;
  std::string value;
};
using Headers = std::vector<Header>;

struct RequestHead {
  std::string method;
  std::string target;
  std::string version;  // "HTTP/1.0" or "HTTP/1.1"
  Headers headers;
};

struct ResponseHead {
  std::string version;
  int status = 0;
  Headers headers;
};

// The first value of a header, by case-insensitive name.
std::optional<std::string> headerValue(const Headers& headers, std::string_view name);
// True if any header `name` lists `token` in its comma-separated value
// (case-insensitive), e.g. "Connection: keep-alive, close" has "close".
bool headerHasToken(const Headers& headers, std::string_view name, std::string_view token);
bool iequals(std::string_view a, std::string_view b);

// Parse a head as returned by readHead(): start line, header lines, blank
// line; each line ends in CRLF or a bare LF. nullopt if malformed.
std::optional<RequestHead> parseRequestHead(std::string_view raw);
std::optional<ResponseHead> parseResponseHead(std::string_view raw);

// Whether the connection may carry another message after this one.
bool requestKeepAlive(const RequestHead& head);
bool responseKeepAlive(const ResponseHead& head);

// How a message body is delimited.
struct BodyFraming {
  enum class Kind { None, Length, Chunked, UntilClose };
  Kind kind = Kind::None;
  std::uint64_t length = 0;
};
// nullopt: contradictory or unsupported framing, answered with 400.
std::optional<BodyFraming> requestFraming(const RequestHead& head);
std::optional<BodyFraming> responseFraming(const ResponseHead& head, bool requestWasHead);

struct HeadResult {
  enum class Status { Ok, Closed, Truncated, TooLarge, Timeout, Stopped, Error, PeerGone };
  Status status = Status::Error;
  std::string raw;  // the head, terminator included; the rest stays buffered
};
// Reads until a complete head is buffered. Closed: EOF before any byte;
// Truncated: EOF inside the head. `skipLeadingBlankLines`: requests may be
// preceded by stray CRLFs (RFC 9112 2.2).
HeadResult readHead(BufferedSocket& in, std::chrono::milliseconds idle, size_t maxBytes,
                    bool skipLeadingBlankLines, int watchFd = -1);

}  // namespace fake_proxy
