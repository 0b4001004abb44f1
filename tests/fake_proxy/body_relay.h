// Copies one message body from a buffered source to a sink as the bytes
// arrive (nothing is held back, so SSE events pass through at once), and
// stops exactly at the end of the body so the connection can be reused.
#pragma once

#include <chrono>

#include "buffered_socket.h"
#include "http_head.h"

namespace fake_proxy {

enum class RelayResult {
  Complete,      // the whole body went through
  SourceClosed,  // the source closed before the end (for UntilClose: the end)
  SinkFailed,    // writing to the sink failed
  Timeout,       // the source was silent for the idle timeout
  Stopped,       // the process is stopping
  Malformed,     // broken chunked framing
  SourceError,
  SinkGone,  // the sink hung up while we waited for the source
};

// `watchSink`: end early with SinkGone when the sink hangs up, so that a
// client leaving in the middle of a stream closes the origin connection too.
RelayResult relayBody(BufferedSocket& from, BufferedSocket& to, const BodyFraming& framing,
                      std::chrono::milliseconds idle, bool watchSink);

}  // namespace fake_proxy
