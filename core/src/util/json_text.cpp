#include "util/json_text.h"

#include <modelgw/provider/json_scan.hpp>

#include <array>
#include <charconv>

namespace modelgw::util {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed UTF-8 sequence at `s[i]` (a lead byte of
// 0x80 or more), or 0 when it is not one (RFC 3629: no overlongs, no
// surrogates, nothing past U+10FFFF).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// The bytes written as they are: printable ASCII but '"' and '\\'.
constexpr std::array<bool, 256> kPlainByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}();

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  // One reservation for the usual case (few escapes): this writes whole
  // answers kept for idempotency and every log and record line.
  out.reserve(out.size() + s.size() + s.size() / 8 + 2);
  out.push_back('"');
  const auto* bytes = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  auto flush = [&](std::size_t end) { out.append(s.data() + plain, end - plain); };
  for (std::size_t i = 0; i < n;) {
    i = mgw::provider::json_scan::plain_run_end(s, i);  // whole words of plain bytes
    while (i < n && kPlainByte[bytes[i]]) ++i;
    if (i == n) break;
    const unsigned char c = bytes[i];
    if (c >= 0x80) {
      if (const std::size_t len = utf8_sequence(s, i); len != 0) {
        i += len;
        continue;
      }
      flush(i);
      out.append(kReplacement);
      plain = ++i;
      continue;
    }
    flush(i);
    switch (c) {
      case '"':
        out.append("\\\"", 2);
        break;
      case '\\':
        out.append("\\\\", 2);
        break;
      case '\n':
        out.append("\\n", 2);
        break;
      case '\r':
        out.append("\\r", 2);
        break;
      case '\t':
        out.append("\\t", 2);
        break;
      case '\b':
        out.append("\\b", 2);
        break;
      case '\f':
        out.append("\\f", 2);
        break;
      default: {
        const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(escaped, sizeof escaped);
      }
    }
    plain = ++i;
  }
  flush(n);
  out.push_back('"');
}

void append_json_member(std::string& out, std::string_view name, std::string_view value) {
  out.append(",\"").append(name).append("\":");
  append_json_string(out, value);
}

void append_json_member(std::string& out, std::string_view name, std::int64_t value) {
  out.append(",\"").append(name).append("\":");
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, r.ptr);
}

void append_json_member(std::string& out, std::string_view name, bool value) {
  out.append(",\"").append(name).append("\":").append(value ? "true" : "false");
}

}  // namespace modelgw::util
