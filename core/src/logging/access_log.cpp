#include "logging/access_log.h"

#include "util/json_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cstddef>

namespace modelgw::logging {
namespace {

// Written only before and after serving (logging::init and shutdown).
LineOutput g_output;
Format g_line_format = Format::json;
AccessFormat g_format = AccessFormat::json;

std::string_view or_dash(std::string_view s) {
  return s.empty() ? std::string_view("-") : s;
}

// NCSA combined, as web servers write it, with the tenant as the user;
// referer and user agent are not logged (clients put anything there).
std::string combined(const AccessRecord& r) {
  return fmt::format("- {} [-] \"{} {} HTTP/1.1\" {} {} \"-\" \"-\" {}us {}", or_dash(r.tenant),
                     or_dash(r.method), or_dash(r.path), r.status, r.bytes, r.duration_us,
                     or_dash(r.error_code));
}

// A member's name with what goes before its value, worked out when the
// gateway is compiled: `,"name":` in a JSON line, ` name=` in a text line.
// One append per member then, instead of three per name and a length
// computed each time (the line is written for every request).
template <std::size_t N>
struct MemberName {
  static constexpr std::size_t kLength = N - 1;  // without the literal's NUL
  char json[kLength + 4]{};
  char text[kLength + 2]{};
  consteval MemberName(const char (&name)[N]) {  // NOLINT(google-explicit-constructor): used as a literal
    json[0] = ',';
    json[1] = '"';
    text[0] = ' ';
    for (std::size_t i = 0; i < kLength; ++i) {
      json[i + 2] = name[i];
      text[i + 1] = name[i];
    }
    json[kLength + 2] = '"';
    json[kLength + 3] = ':';
    text[kLength + 1] = '=';
  }
};

// The line's members after msg, in JSON or as text key=value pairs.
class Members {
 public:
  Members(std::string& out, Format format) : out_(out), json_(format == Format::json) {}
  template <MemberName name>
  void add(std::string_view value) {
    start<name>();
    if (json_) return util::append_json_string(out_, value);
    append_text(out_, value);
  }
  template <MemberName name>
  void add(std::int64_t value) {
    start<name>();
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, value);
    out_.append(digits, r.ptr);
  }
  template <MemberName name>
  void add(bool value) {
    start<name>();
    out_.append(value ? std::string_view("true") : std::string_view("false"));
  }

 private:
  template <MemberName name>
  void start() {
    if (json_) {
      out_.append(name.json, sizeof name.json);
    } else {
      out_.append(name.text, sizeof name.text);
    }
  }
  std::string& out_;
  bool json_;
};

}  // namespace

void configure_access_log(LineOutput output, Format line_format, AccessFormat format) {
  g_output = std::move(output);
  g_line_format = line_format;
  g_format = format;
}

bool access_log_enabled() {
  return static_cast<bool>(g_output);
}

std::string access_line(const AccessRecord& r, Format line_format, AccessFormat format) {
  std::string line;
  line.reserve(448);
  append_line_start(line, line_format, spdlog::level::info, std::chrono::system_clock::now());
  const std::string message = format == AccessFormat::combined ? combined(r) : std::string("access");
  if (line_format == Format::json) {
    util::append_json_string(line, message);
  } else {
    append_text(line, message);
  }
  Members m(line, line_format);
  m.add<"log">(std::string_view("access"));
  m.add<"request_id">(r.request_id);
  if (format == AccessFormat::combined) {
    if (!r.trace_id.empty()) m.add<"trace_id">(r.trace_id);  // to join the line with its trace
  } else {
    m.add<"method">(r.method);
    m.add<"path">(r.path);
    m.add<"status">(static_cast<std::int64_t>(r.status));
    m.add<"error">(r.error_code);
    m.add<"bytes">(static_cast<std::int64_t>(r.bytes));
    m.add<"duration_us">(r.duration_us);
    m.add<"tenant">(r.tenant);
    m.add<"alias">(r.alias);
    m.add<"provider">(r.provider);
    m.add<"streamed">(r.streamed);
    m.add<"delivered">(r.delivered);
    m.add<"trace_id">(r.trace_id);
    if (r.tokens >= 0) {
      m.add<"tokens">(r.tokens);
      m.add<"attempts">(static_cast<std::int64_t>(r.attempts));
      m.add<"pii">(r.pii);
    }
  }
  if (line_format == Format::json) line.push_back('}');
  return line;
}

void write_access(const AccessRecord& r) {
  if (!g_output) return;
  std::string line = access_line(r, g_line_format, g_format);
  line.push_back('\n');
  g_output(line);
}

}  // namespace modelgw::logging
