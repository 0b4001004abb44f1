#include "http_head.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace fake_proxy {
namespace {

constexpr size_t kMaxHeaders = 200;

char lowerChar(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// RFC 9110 token characters: method names and header names.
bool isTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool isToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), isTokenChar);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits off the next line (without its CRLF/LF); false when none is left.
bool nextLine(std::string_view& rest, std::string_view& line) {
  const auto lf = rest.find('\n');
  if (lf == std::string_view::npos) return false;
  line = rest.substr(0, lf);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  rest.remove_prefix(lf + 1);
  return true;
}

bool isHttpVersion(std::string_view v) {
  return v == "HTTP/1.1" || v == "HTTP/1.0";
}

bool hasControlChars(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

// Header lines up to the blank line. Obsolete line folding is refused: it is
// a classic request smuggling vector and no client we test sends it.
bool parseHeaders(std::string_view rest, Headers& out) {
  std::string_view line;
  while (nextLine(rest, line)) {
    if (line.empty()) return true;
    if (out.size() >= kMaxHeaders) return false;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return false;
    const auto name = line.substr(0, colon);
    const auto value = trim(line.substr(colon + 1));
    if (!isToken(name) || hasControlChars(value)) return false;
    out.push_back({std::string(name), std::string(value)});
  }
  return false;
}

std::optional<std::uint64_t> parseLength(std::string_view s) {
  constexpr std::uint64_t kMax = std::uint64_t{1} << 62;
  std::uint64_t value = 0;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (s.empty() || ec != std::errc() || ptr != end || value > kMax) return std::nullopt;
  return value;
}

// Content-Length, which may repeat only with identical values.
std::optional<std::optional<std::uint64_t>> contentLength(const Headers& headers) {
  std::optional<std::uint64_t> length;
  for (const auto& h : headers) {
    if (!iequals(h.name, "content-length")) continue;
    const auto v = parseLength(h.value);
    if (!v || (length && *length != *v)) return std::nullopt;
    length = v;
  }
  return length;
}

// The last transfer coding listed, lower-cased; empty if there is none.
std::string lastTransferCoding(const Headers& headers) {
  std::string last;
  for (const auto& h : headers) {
    if (!iequals(h.name, "transfer-encoding")) continue;
    std::string_view rest = h.value;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const auto item = trim(rest.substr(0, comma));
      if (!item.empty()) {
        last.assign(item);
        std::transform(last.begin(), last.end(), last.begin(), lowerChar);
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return last;
}

bool hasHeader(const Headers& headers, std::string_view name) {
  return headerValue(headers, name).has_value();
}

// Offset just past the blank line ending a head, or npos.
size_t headEnd(std::string_view buffer) {
  for (size_t pos = buffer.find('\n'); pos != std::string_view::npos; pos = buffer.find('\n', pos + 1)) {
    if (pos + 1 < buffer.size() && buffer[pos + 1] == '\n') return pos + 2;
    if (pos + 2 < buffer.size() && buffer[pos + 1] == '\r' && buffer[pos + 2] == '\n') return pos + 3;
  }
  return std::string_view::npos;
}

void dropLeadingBlankLines(std::string& buffer) {
  size_t n = 0;
  while (n < buffer.size() && (buffer[n] == '\r' || buffer[n] == '\n')) ++n;
  buffer.erase(0, n);
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return lowerChar(x) == lowerChar(y); });
}

std::optional<std::string> headerValue(const Headers& headers, std::string_view name) {
  for (const auto& h : headers) {
    if (iequals(h.name, name)) return h.value;
  }
  return std::nullopt;
}

bool headerHasToken(const Headers& headers, std::string_view name, std::string_view token) {
  for (const auto& h : headers) {
    if (!iequals(h.name, name)) continue;
    std::string_view rest = h.value;
    while (true) {
      const auto comma = rest.find(',');
      if (iequals(trim(rest.substr(0, comma)), token)) return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

std::optional<RequestHead> parseRequestHead(std::string_view raw) {
  std::string_view rest = raw;
  std::string_view line;
  if (!nextLine(rest, line)) return std::nullopt;
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) return std::nullopt;
  RequestHead head;
  head.method = line.substr(0, sp1);
  head.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  head.version = line.substr(sp2 + 1);
  if (!isToken(head.method) || head.target.empty() || hasControlChars(head.target) ||
      !isHttpVersion(head.version)) {
    return std::nullopt;
  }
  if (!parseHeaders(rest, head.headers)) return std::nullopt;
  return head;
}

std::optional<ResponseHead> parseResponseHead(std::string_view raw) {
  std::string_view rest = raw;
  std::string_view line;
  if (!nextLine(rest, line)) return std::nullopt;
  // "HTTP/1.1 200 OK"; the reason phrase may be empty or missing.
  if (line.size() < 12 || line[8] != ' ' || (line.size() > 12 && line[12] != ' ')) return std::nullopt;
  ResponseHead head;
  head.version = line.substr(0, 8);
  const auto code = line.substr(9, 3);
  if (!isHttpVersion(head.version) || !std::all_of(code.begin(), code.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    return std::nullopt;
  }
  head.status = std::stoi(std::string(code));
  if (head.status < 100) return std::nullopt;
  if (!parseHeaders(rest, head.headers)) return std::nullopt;
  return head;
}

bool requestKeepAlive(const RequestHead& head) {
  if (headerHasToken(head.headers, "connection", "close")) return false;
  return head.version == "HTTP/1.1" || headerHasToken(head.headers, "connection", "keep-alive");
}

bool responseKeepAlive(const ResponseHead& head) {
  if (headerHasToken(head.headers, "connection", "close")) return false;
  return head.version == "HTTP/1.1" || headerHasToken(head.headers, "connection", "keep-alive");
}

std::optional<BodyFraming> requestFraming(const RequestHead& head) {
  const auto length = contentLength(head.headers);
  if (!length) return std::nullopt;
  if (hasHeader(head.headers, "transfer-encoding")) {
    // A request with both is a smuggling attempt; one not ending in chunked
    // has no knowable length (RFC 9112 6.3).
    if (*length || lastTransferCoding(head.headers) != "chunked") return std::nullopt;
    return BodyFraming{BodyFraming::Kind::Chunked, 0};
  }
  if (*length && **length > 0) return BodyFraming{BodyFraming::Kind::Length, **length};
  return BodyFraming{};
}

std::optional<BodyFraming> responseFraming(const ResponseHead& head, bool requestWasHead) {
  if (requestWasHead || head.status < 200 || head.status == 204 || head.status == 304) return BodyFraming{};
  if (hasHeader(head.headers, "transfer-encoding")) {
    if (lastTransferCoding(head.headers) == "chunked") return BodyFraming{BodyFraming::Kind::Chunked, 0};
    return BodyFraming{BodyFraming::Kind::UntilClose, 0};
  }
  const auto length = contentLength(head.headers);
  if (!length) return std::nullopt;
  if (*length) return BodyFraming{BodyFraming::Kind::Length, **length};
  return BodyFraming{BodyFraming::Kind::UntilClose, 0};
}

HeadResult readHead(BufferedSocket& in, std::chrono::milliseconds idle, size_t maxBytes,
                    bool skipLeadingBlankLines, int watchFd) {
  using Status = HeadResult::Status;
  auto& buffer = in.buffer();
  while (true) {
    if (skipLeadingBlankLines) dropLeadingBlankLines(buffer);
    const auto end = headEnd(buffer);
    if (end != std::string_view::npos) {
      if (end > maxBytes) return {Status::TooLarge, {}};
      HeadResult result{Status::Ok, buffer.substr(0, end)};
      buffer.erase(0, end);
      return result;
    }
    if (buffer.size() > maxBytes) return {Status::TooLarge, {}};
    switch (in.fill(idle, watchFd)) {
      case ReadStatus::Data:
        break;
      case ReadStatus::Eof:
        return {buffer.empty() ? Status::Closed : Status::Truncated, {}};
      case ReadStatus::Timeout:
        return {Status::Timeout, {}};
      case ReadStatus::Stopped:
        return {Status::Stopped, {}};
      case ReadStatus::PeerGone:
        return {Status::PeerGone, {}};
      case ReadStatus::Error:
        return {Status::Error, {}};
    }
  }
}

}  // namespace fake_proxy
