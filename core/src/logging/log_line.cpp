#include "logging/log_line.h"

#include <ctime>

namespace modelgw::logging {
namespace {

// Starts and ends the fields at the front of a payload. A JSON dump never
// holds a raw control character, so the first mark after the opening one
// ends the fields.
constexpr char kFieldsMark = '\x1e';

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

void append(spdlog::memory_buf_t& dest, std::string_view s) {
  dest.append(s.data(), s.data() + s.size());
}

// RFC 3339 in UTC with milliseconds: sortable, and the same on every host.
void append_time(spdlog::memory_buf_t& dest, spdlog::log_clock::time_point tp) {
  using namespace std::chrono;
  const auto since = tp.time_since_epoch();
  const std::time_t secs = duration_cast<seconds>(since).count();
  const auto ms = duration_cast<milliseconds>(since).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  const int n =
      std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  dest.append(buf, buf + n);
}

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Text lines keep one event on one line: control characters are escaped.
void append_text(spdlog::memory_buf_t& dest, std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u == '\n') {
      append(dest, "\\n");
    } else if (u == '\r') {
      append(dest, "\\r");
    } else if (u == '\t') {
      append(dest, "\\t");
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      const int n = std::snprintf(buf, sizeof buf, "\\x%02x", u);
      dest.append(buf, buf + n);
    } else {
      dest.push_back(c);
    }
  }
}

}  // namespace

std::string with_fields(const nlohmann::json& fields, std::string_view message) {
  std::string out;
  out += kFieldsMark;
  out += fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += kFieldsMark;
  out.append(message);
  return out;
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
  if (format_ == Format::json) {
    append(dest, "{\"ts\":\"");
    append_time(dest, msg.time);
    append(dest, "\",\"level\":\"");
    append(dest, level_name(msg.level));
    append(dest, "\",\"msg\":");
    append(dest, json_string(text));
    if (fields.size() > 2) {  // not "{}": its members follow msg's
      dest.push_back(',');
      append(dest, fields.substr(1, fields.size() - 2));
    }
    append(dest, "}\n");
    return;
  }
  append_time(dest, msg.time);
  dest.push_back(' ');
  append(dest, level_name(msg.level));
  dest.push_back(' ');
  append_text(dest, text);
  if (!fields.empty()) {
    const auto object = nlohmann::json::parse(fields, nullptr, false);
    if (object.is_object()) {
      for (const auto& [key, value] : object.items()) {
        dest.push_back(' ');
        append(dest, key);
        dest.push_back('=');
        append_text(dest, value.is_string()
                              ? value.get_ref<const std::string&>()
                              : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      }
    }
  }
  dest.push_back('\n');
}

std::unique_ptr<spdlog::formatter> LineFormatter::clone() const {
  return std::make_unique<LineFormatter>(format_);
}

}  // namespace modelgw::logging
