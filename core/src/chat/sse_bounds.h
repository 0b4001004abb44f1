// Bounds on an upstream event stream's framing, checked by the host on the
// raw bytes before a provider plugin buffers them: one line, and one event
// (the lines up to a blank one), each at most a configured size. Without
// them a vendor (or anything between) that never ends a line would make the
// plugin buffer without limit.
#pragma once

#include <cstddef>
#include <string_view>

namespace modelgw::chat {

class SseBounds {
 public:
  SseBounds(std::size_t max_line_bytes, std::size_t max_event_bytes)
      : max_line_(max_line_bytes), max_event_(max_event_bytes) {}

  // Feeds the next piece; false once a line or an event is over its bound.
  bool feed(std::string_view piece);
  // Which bound was passed ("line" or "event"), after feed() returned false.
  const char* passed() const { return passed_; }

 private:
  std::size_t max_line_;
  std::size_t max_event_;
  std::size_t line_ = 0;   // bytes of the current line, its CR included
  std::size_t event_ = 0;  // bytes of the current event
  char last_ = 0;          // the last byte before the line end (a CR ends "\r\n" lines)
  const char* passed_ = "";
};

}  // namespace modelgw::chat
