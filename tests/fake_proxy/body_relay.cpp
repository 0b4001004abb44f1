#include "body_relay.h"

#include <Poco/Exception.h>

#include <algorithm>

#include "chunked_tracker.h"

namespace fake_proxy {
namespace {

// Sends the first `n` buffered bytes of `from` to `to` and drops them.
bool forward(BufferedSocket& from, BufferedSocket& to, size_t n) {
  if (n == 0) return true;
  try {
    to.writeAll(std::string_view(from.buffer()).substr(0, n));
  } catch (const Poco::Exception&) {
    return false;
  }
  from.buffer().erase(0, n);
  return true;
}

RelayResult fromReadStatus(ReadStatus status) {
  switch (status) {
    case ReadStatus::Eof:
      return RelayResult::SourceClosed;
    case ReadStatus::Timeout:
      return RelayResult::Timeout;
    case ReadStatus::Stopped:
      return RelayResult::Stopped;
    case ReadStatus::PeerGone:
      return RelayResult::SinkGone;
    case ReadStatus::Data:
    case ReadStatus::Error:
      break;
  }
  return RelayResult::SourceError;
}

}  // namespace

RelayResult relayBody(BufferedSocket& from, BufferedSocket& to, const BodyFraming& framing,
                      std::chrono::milliseconds idle, bool watchSink) {
  using Kind = BodyFraming::Kind;
  if (framing.kind == Kind::None) return RelayResult::Complete;
  std::uint64_t remaining = framing.length;
  ChunkedTracker chunks;
  const int watchFd = watchSink ? to.fd() : -1;
  while (true) {
    size_t take = from.buffer().size();
    if (framing.kind == Kind::Length) {
      take = static_cast<size_t>(std::min<std::uint64_t>(take, remaining));
      remaining -= take;
    } else if (framing.kind == Kind::Chunked) {
      take = chunks.feed(from.buffer());
    }
    if (!forward(from, to, take)) return RelayResult::SinkFailed;
    if (framing.kind == Kind::Length && remaining == 0) return RelayResult::Complete;
    if (framing.kind == Kind::Chunked && chunks.done()) return RelayResult::Complete;
    if (chunks.failed()) return RelayResult::Malformed;
    const ReadStatus status = from.fill(idle, watchFd);
    if (status == ReadStatus::Eof && framing.kind == Kind::UntilClose) return RelayResult::Complete;
    if (status != ReadStatus::Data) return fromReadStatus(status);
  }
}

}  // namespace fake_proxy
