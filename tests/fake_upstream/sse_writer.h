// Writes Server-Sent Events to a chunked response body, one flush per event
// so the client sees each event as soon as it is produced. Events are
// "data: ..." (OpenAI, Gemini) or "event: <type>" + "data: ..." (Anthropic).
//
// In split mode it instead writes every event in fragments of 1 to 7 bytes,
// each flushed as its own HTTP chunk (so its own TCP send), uses CRLF line
// endings and starts with a ": keep-alive" comment: this exercises a decoder
// that must reassemble events across reads and accept every legal line ending.
// With `comments` every event is preceded by a ": comment" block of its own.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace fake_upstream {

struct SseOptions {
  bool split = false;
  int delayBetweenEventsMs = 0;  // chunk_delay_ms: sleep before every event but the first
  bool crlf = false;             // CRLF line endings (always on in split mode; Gemini always)
  bool comments = false;         // a ": comment" block before every event
};

class SseWriter {
 public:
  SseWriter(std::ostream& out, SseOptions options);

  // Writes "data: <payload>" followed by a blank line. Returns false once the
  // client has gone away (or the server is stopping); callers then stop.
  bool writeData(std::string_view payload) { return writeEvent({}, payload); }

  // Writes "event: <type>" (omitted when `type` is empty), then
  // "data: <payload>" and a blank line. Same return value as writeData.
  bool writeEvent(std::string_view type, std::string_view payload);

  bool ok() const { return out_.good(); }

 private:
  void writeFragmented(std::string_view bytes);

  std::ostream& out_;
  const SseOptions options_;
  const char* const eol_;
  std::string event_;  // reused for every event
  size_t eventsWritten_ = 0;
  size_t fragments_ = 0;  // position in the fragment-size pattern, kept across events
};

}  // namespace fake_upstream
