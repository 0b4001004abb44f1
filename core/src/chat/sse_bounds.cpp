#include "chat/sse_bounds.h"

#include <cstring>

namespace modelgw::chat {

bool SseBounds::feed(std::string_view piece) {
  const char* p = piece.data();
  const char* end = p + piece.size();
  // Linear: memchr jumps from one line end to the next.
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* stop = nl ? static_cast<const char*>(nl) : end;
    const auto n = static_cast<std::size_t>(stop - p);
    // Only content can pass a bound: a line end counts toward its event, but
    // the blank line that ends an event is never what makes it too large.
    if (n > 0) {
      line_ += n;
      event_ += n;
      last_ = stop[-1];
      if (line_ > max_line_) {
        passed_ = "line";
        return false;
      }
      if (event_ > max_event_) {
        passed_ = "event";
        return false;
      }
    }
    if (!nl) break;
    // A line end. An empty line (or a lone CR) ends the event.
    if (line_ == 0 || (line_ == 1 && last_ == '\r')) {
      event_ = 0;
    } else {
      ++event_;
    }
    line_ = 0;
    p = stop + 1;
  }
  return true;
}

}  // namespace modelgw::chat
