#include "chunked_tracker.h"

#include <algorithm>

namespace fake_proxy {
namespace {

constexpr int kMaxSizeDigits = 15;       // < 2^60: no overflow
constexpr size_t kMaxLineLength = 4096;  // chunk extensions, one trailer line
constexpr size_t kMaxTrailerBytes = 64 * 1024;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void ChunkedTracker::endSizeLine() {
  state_ = size_ == 0 ? State::LineStart : State::Data;
  lineLength_ = 0;
}

bool ChunkedTracker::step(char c) {
  switch (state_) {
    case State::Size: {
      const int v = hexValue(c);
      if (v >= 0) {
        if (++digits_ > kMaxSizeDigits) return false;
        size_ = size_ * 16 + static_cast<std::uint64_t>(v);
        return true;
      }
      if (digits_ == 0) return false;
      if (c == '\r') return true;  // the LF decides
      if (c == '\n') {
        endSizeLine();
        return true;
      }
      if (c == ';' || c == ' ' || c == '\t') {
        state_ = State::Extension;
        return true;
      }
      return false;
    }
    case State::Extension:
      if (c == '\n') {
        endSizeLine();
        return true;
      }
      return ++lineLength_ <= kMaxLineLength;
    case State::DataCr:
      if (c == '\r') {
        state_ = State::DataLf;
        return true;
      }
      [[fallthrough]];
    case State::DataLf:
      if (c != '\n') return false;
      state_ = State::Size;
      size_ = 0;
      digits_ = 0;
      return true;
    case State::LineStart:
      if (c == '\r') {
        state_ = State::LineStartCr;
        return true;
      }
      if (c == '\n') {
        state_ = State::Done;
        return true;
      }
      state_ = State::TrailerLine;
      lineLength_ = 1;
      return ++trailerBytes_ <= kMaxTrailerBytes;
    case State::LineStartCr:
      if (c != '\n') return false;
      state_ = State::Done;
      return true;
    case State::TrailerLine:
      if (c == '\n') {
        state_ = State::LineStart;
        return true;
      }
      return ++lineLength_ <= kMaxLineLength && ++trailerBytes_ <= kMaxTrailerBytes;
    case State::Data:
    case State::Done:
    case State::Failed:
      return false;
  }
  return false;
}

size_t ChunkedTracker::feed(std::string_view data) {
  size_t pos = 0;
  while (pos < data.size() && state_ != State::Done && state_ != State::Failed) {
    if (state_ == State::Data) {
      const auto take = static_cast<size_t>(std::min<std::uint64_t>(size_, data.size() - pos));
      pos += take;
      size_ -= take;
      if (size_ == 0) state_ = State::DataCr;
      continue;
    }
    if (!step(data[pos])) {
      state_ = State::Failed;
      return pos;
    }
    ++pos;
  }
  return pos;
}

}  // namespace fake_proxy
