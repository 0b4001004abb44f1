#include "http_wire.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace bench {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool icontains(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (iequals(haystack.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string build_request(std::string_view method, std::string_view path, std::string_view bearer,
                          std::string_view body, std::string_view extra_headers) {
  std::string r;
  r.reserve(256 + extra_headers.size() + body.size());
  r.append(method).append(" ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  if (!bearer.empty()) r.append("Authorization: Bearer ").append(bearer).append("\r\n");
  r.append(extra_headers);
  if (method == "POST") {
    r.append("Content-Type: application/json\r\nContent-Length: ").append(std::to_string(body.size()));
    r.append("\r\n");
  }
  r.append("\r\n").append(body);
  return r;
}

std::size_t head_length(std::string_view data) {
  const auto end = data.find("\r\n\r\n");
  return end == std::string_view::npos ? 0 : end + 4;
}

std::optional<ResponseHead> parse_head(std::string_view head) {
  if (head.rfind("HTTP/1.", 0) != 0 || head.size() < 12) return std::nullopt;
  ResponseHead h;
  const std::string_view code = head.substr(9, 3);
  if (std::from_chars(code.data(), code.data() + code.size(), h.status).ec != std::errc())
    return std::nullopt;
  if (head.substr(0, 8) == "HTTP/1.0") h.close = true;
  std::size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    const std::size_t start = pos + 2;
    const std::size_t end = head.find("\r\n", start);
    const std::string_view line = head.substr(start, end == std::string_view::npos ? head.npos : end - start);
    pos = end;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (iequals(name, "content-length")) {
      std::uint64_t n = 0;
      if (std::from_chars(value.data(), value.data() + value.size(), n).ec == std::errc())
        h.content_length = n;
    } else if (iequals(name, "transfer-encoding")) {
      h.chunked = icontains(value, "chunked");
    } else if (iequals(name, "connection")) {
      if (icontains(value, "close")) h.close = true;
      if (icontains(value, "keep-alive")) h.close = false;
    }
  }
  return h;
}

std::size_t ChunkedDecoder::feed(std::string_view data, std::string& out) {
  std::size_t i = 0;
  while (i < data.size() && state_ != State::done && state_ != State::failed) {
    switch (state_) {
      case State::size_line:
      case State::trailer: {
        const auto nl = data.find('\n', i);
        const std::size_t stop = nl == std::string_view::npos ? data.size() : nl + 1;
        line_.append(data.substr(i, stop - i));
        i = stop;
        if (line_.size() > 4096) {
          state_ = State::failed;
          break;
        }
        if (nl == std::string_view::npos) break;
        std::string_view line = trim(std::string_view(line_).substr(0, line_.size() - 1));
        if (state_ == State::trailer) {
          if (line.empty()) state_ = State::done;  // trailer headers are skipped
          line_.clear();
          break;
        }
        line = line.substr(0, line.find(';'));  // chunk extensions
        std::uint64_t size = 0;
        const auto res = std::from_chars(line.data(), line.data() + line.size(), size, 16);
        line_.clear();
        if (line.empty() || res.ec != std::errc() || res.ptr != line.data() + line.size()) {
          state_ = State::failed;
          break;
        }
        left_ = size;
        state_ = size == 0 ? State::trailer : State::data;
        break;
      }
      case State::data: {
        const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left_, data.size() - i));
        out.append(data.substr(i, take));
        i += take;
        left_ -= take;
        if (left_ == 0) state_ = State::data_crlf;
        break;
      }
      case State::data_crlf: {
        const char c = data[i++];
        if (c == '\n') {
          state_ = State::size_line;
        } else if (c != '\r') {
          state_ = State::failed;
        }
        break;
      }
      case State::done:
      case State::failed:
        break;
    }
  }
  return i;
}

}  // namespace bench
