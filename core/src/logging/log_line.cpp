#include "logging/log_line.h"

#include "util/json_text.h"

#include <ctime>

namespace modelgw::logging {
namespace {

// Starts and ends the fields at the front of a payload. A JSON dump never
// holds a raw control character, so the first mark after the opening one
// ends the fields.
constexpr char kFieldsMark = '\x1e';

void append(spdlog::memory_buf_t& dest, std::string_view s) {
  dest.append(s.data(), s.data() + s.size());
}

}  // namespace

void append_time(std::string& out, std::chrono::system_clock::time_point tp) {
  using namespace std::chrono;
  const auto since = tp.time_since_epoch();
  const std::time_t secs = duration_cast<seconds>(since).count();
  const auto ms = static_cast<int>(duration_cast<milliseconds>(since).count() % 1000);
  // The date and time of day change once a second: formatted once per second
  // and thread, not once per line.
  thread_local std::time_t cached_secs = -1;
  thread_local char cached[64];  // "2026-01-02T03:04:05."
  if (secs != cached_secs) {
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::snprintf(cached, sizeof cached, "%04d-%02d-%02dT%02d:%02d:%02d.", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    cached_secs = secs;
  }
  out.append(cached, 20);
  const char millis[] = {static_cast<char>('0' + ms / 100), static_cast<char>('0' + ms / 10 % 10),
                         static_cast<char>('0' + ms % 10), 'Z'};
  out.append(millis, sizeof millis);
}

void append_text(std::string& out, std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u == '\n') {
      out.append("\\n");
    } else if (u == '\r') {
      out.append("\\r");
    } else if (u == '\t') {
      out.append("\\t");
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      const int n = std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out.append(buf, static_cast<std::size_t>(n));
    } else {
      out.push_back(c);
    }
  }
}

std::string_view level_name(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return "trace";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    case spdlog::level::err:
      return "error";
    case spdlog::level::critical:
      return "critical";
    default:
      return "off";
  }
}

std::string with_fields(const nlohmann::json& fields, std::string_view message) {
  std::string out;
  out += kFieldsMark;
  out += fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += kFieldsMark;
  out.append(message);
  return out;
}

void append_line_start(std::string& out, Format format, spdlog::level::level_enum level,
                       std::chrono::system_clock::time_point time) {
  if (format == Format::json) {
    out.append("{\"ts\":\"");
    append_time(out, time);
    out.append("\",\"level\":\"").append(level_name(level)).append("\",\"msg\":");
    return;
  }
  append_time(out, time);
  out.push_back(' ');
  out.append(level_name(level));
  out.push_back(' ');
}

void LineFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  std::string_view text(msg.payload.data(), msg.payload.size());
  std::string_view fields;  // a JSON object's text, or empty
  if (!text.empty() && text.front() == kFieldsMark) {
    const std::size_t end = text.find(kFieldsMark, 1);
    // Checked, not trusted: a message that only looks like fields stays text.
    if (end != std::string_view::npos && end > 2 && text[1] == '{' && text[end - 1] == '}' &&
        nlohmann::json::accept(text.substr(1, end - 1))) {
      fields = text.substr(1, end - 1);
      text.remove_prefix(end + 1);
    }
  }
  std::string line;
  line.reserve(128 + text.size() + fields.size());
  append_line_start(line, format_, msg.level, msg.time);
  if (format_ == Format::json) {
    util::append_json_string(line, text);
    if (fields.size() > 2) {  // not "{}": its members follow msg's
      line.push_back(',');
      line.append(fields.substr(1, fields.size() - 2));
    }
    line.append("}\n");
    append(dest, line);
    return;
  }
  append_text(line, text);
  if (!fields.empty()) {
    const auto object = nlohmann::json::parse(fields, nullptr, false);
    if (object.is_object()) {
      for (const auto& [key, value] : object.items()) {
        line.push_back(' ');
        line.append(key);
        line.push_back('=');
        append_text(line, value.is_string()
                              ? value.get_ref<const std::string&>()
                              : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      }
    }
  }
  line.push_back('\n');
  append(dest, line);
}

std::unique_ptr<spdlog::formatter> LineFormatter::clone() const {
  return std::make_unique<LineFormatter>(format_);
}

}  // namespace modelgw::logging
