// The shutdown drain (SIGTERM/SIGINT): in-flight calls may finish within
// server.shutdown_grace_ms; what still runs then is ended with a 503
// `shutting_down` (a stream: its final error event); what does not end even
// then is closed. A second SIGTERM/SIGINT ends the wait for the grace period
// at once.
#pragma once

#include "http/listener.h"

#include <chrono>
#include <csignal>

namespace modelgw::app {

// How the drain ended, for the log and the exit.
struct DrainResult {
  bool hurried = false;  // a second signal ended the wait early
  int ended = 0;         // calls ended with `shutting_down`
  int closed = 0;        // calls still running after that, closed without an answer
};

// Blocks the calling thread (the main thread, never a loop) until the drain
// is over: at most grace + kEndWait + kAbortWait. `signals` are the
// (blocked) signals that hurry it; the listener is draining already.
DrainResult drain_calls(http::Listener& listener, const sigset_t& signals, std::chrono::milliseconds grace);

// "SIGTERM", "SIGINT", "SIGHUP", else "signal N".
const char* signal_name(int sig);

}  // namespace modelgw::app
