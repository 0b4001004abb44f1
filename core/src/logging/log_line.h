// How one log event becomes one line: a JSON object per line (for journald
// and log shippers) or human-readable text. Structured fields (request_id,
// the access log's fields) travel inside spdlog's message payload, ahead of
// the text, because an async logger formats on another thread: nothing
// thread-local from the caller would still be there.
#pragma once

#include <spdlog/formatter.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace modelgw::logging {

enum class Format { json, text };

// The payload for `message` with `fields` (a JSON object) attached.
std::string with_fields(const nlohmann::json& fields, std::string_view message);

// The pieces every line is made of, shared with lines built without spdlog
// (the access log). RFC 3339 in UTC with milliseconds: sortable, and the same
// on every host.
void append_time(std::string& out, std::chrono::system_clock::time_point time);
// Text lines keep one event on one line: control characters are escaped.
void append_text(std::string& out, std::string_view s);
std::string_view level_name(spdlog::level::level_enum level);
// `{"ts":"...","level":"...","msg":` (JSON: the message's text follows) or
// `<ts> <level> ` (text).
void append_line_start(std::string& out, Format format, spdlog::level::level_enum level,
                       std::chrono::system_clock::time_point time);

// Turns each event into one line. Control characters, quotes and invalid
// UTF-8 in a message cannot break the line: JSON escapes them (invalid bytes
// become U+FFFD), text escapes control characters.
class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(Format format) : format_(format) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  Format format_;
};

}  // namespace modelgw::logging
