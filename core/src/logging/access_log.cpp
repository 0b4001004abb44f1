#include "logging/access_log.h"

#include "util/json_text.h"

#include <fmt/format.h>

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

// The line's members after msg, in JSON or as text key=value pairs.
class Members {
 public:
  Members(std::string& out, Format format) : out_(out), format_(format) {}
  void add(std::string_view name, std::string_view value) {
    if (format_ == Format::json) return util::append_json_member(out_, name, value);
    start(name);
    append_text(out_, value);
  }
  void add(std::string_view name, std::int64_t value) {
    if (format_ == Format::json) return util::append_json_member(out_, name, value);
    start(name);
    out_.append(std::to_string(value));
  }
  void add(std::string_view name, bool value) {
    if (format_ == Format::json) return util::append_json_member(out_, name, value);
    start(name);
    out_.append(value ? "true" : "false");
  }

 private:
  void start(std::string_view name) {
    out_.push_back(' ');
    out_.append(name);
    out_.push_back('=');
  }
  std::string& out_;
  Format format_;
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
  m.add("log", std::string_view("access"));
  m.add("request_id", r.request_id);
  if (format == AccessFormat::combined) {
    if (!r.trace_id.empty()) m.add("trace_id", r.trace_id);  // to join the line with its trace
  } else {
    m.add("method", r.method);
    m.add("path", r.path);
    m.add("status", static_cast<std::int64_t>(r.status));
    m.add("error", r.error_code);
    m.add("bytes", static_cast<std::int64_t>(r.bytes));
    m.add("duration_us", r.duration_us);
    m.add("tenant", r.tenant);
    m.add("alias", r.alias);
    m.add("provider", r.provider);
    m.add("streamed", r.streamed);
    m.add("delivered", r.delivered);
    m.add("trace_id", r.trace_id);
    if (r.tokens >= 0) {
      m.add("tokens", r.tokens);
      m.add("attempts", static_cast<std::int64_t>(r.attempts));
      m.add("pii", r.pii);
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
