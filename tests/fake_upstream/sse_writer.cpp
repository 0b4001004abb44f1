#include "sse_writer.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "shutdown.h"

namespace fake_upstream {
namespace {
// Fragment sizes cycle through this fixed pattern so runs are reproducible and
// every size from 1 to 7 occurs, including ones that split "\r\n" and
// "data:" across fragments.
constexpr size_t kFragmentSizes[] = {1, 5, 2, 7, 3, 6, 4};
constexpr size_t kPatternLength = sizeof(kFragmentSizes) / sizeof(kFragmentSizes[0]);
// A short pause every few fragments makes it likely the client's reads also
// end mid-event instead of the kernel coalescing everything.
constexpr size_t kPauseEveryFragments = 5;
}  // namespace

SseWriter::SseWriter(std::ostream& out, SseOptions options)
    : out_(out), options_(options), eol_(options.split || options.crlf ? "\r\n" : "\n") {
  event_.reserve(512);
  if (options_.split) writeFragmented(": keep-alive\r\n\r\n");
}

bool SseWriter::writeEvent(std::string_view type, std::string_view payload) {
  if (eventsWritten_++ > 0 && options_.delayBetweenEventsMs > 0 &&
      !sleepUnlessStopped(options_.delayBetweenEventsMs)) {
    return false;
  }
  event_.clear();
  if (options_.comments) {
    // A comment block of its own, as proxies send to keep a stream alive:
    // a decoder must skip it without dispatching an event.
    event_.append(": comment");
    event_.append(eol_);
    event_.append(eol_);
  }
  if (!type.empty()) {
    event_.append("event: ");
    event_.append(type);
    event_.append(eol_);
  }
  event_.append("data: ");
  event_.append(payload);
  event_.append(eol_);
  event_.append(eol_);
  if (options_.split) {
    writeFragmented(event_);
  } else {
    out_.write(event_.data(), static_cast<std::streamsize>(event_.size()));
    out_.flush();
  }
  return out_.good();
}

void SseWriter::writeFragmented(std::string_view bytes) {
  while (!bytes.empty() && out_.good()) {
    const size_t n = std::min(bytes.size(), kFragmentSizes[fragments_ % kPatternLength]);
    out_.write(bytes.data(), static_cast<std::streamsize>(n));
    out_.flush();
    bytes.remove_prefix(n);
    if (++fragments_ % kPauseEveryFragments == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace fake_upstream
