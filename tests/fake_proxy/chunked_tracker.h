// Follows the framing of a chunked body as its bytes pass through, without
// changing them, to learn where the message ends (so the connection can be
// kept alive). Tolerates bare LF line endings, bounds every line.
#pragma once

#include <cstdint>
#include <string_view>

namespace fake_proxy {

class ChunkedTracker {
 public:
  // Consumes bytes of the body; returns how many belong to it. That is all of
  // `data` unless the body ended inside it, or the framing is broken (then it
  // stops at the bad byte and failed() is true).
  size_t feed(std::string_view data);
  bool done() const { return state_ == State::Done; }
  bool failed() const { return state_ == State::Failed; }

 private:
  enum class State {
    Size,
    Extension,
    Data,
    DataCr,
    DataLf,
    LineStart,
    LineStartCr,
    TrailerLine,
    Done,
    Failed
  };
  bool step(char c);  // one framing byte; false on a framing error
  void endSizeLine();

  State state_ = State::Size;
  std::uint64_t size_ = 0;
  int digits_ = 0;
  size_t lineLength_ = 0;
  size_t trailerBytes_ = 0;
};

}  // namespace fake_proxy
