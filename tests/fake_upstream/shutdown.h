// Process-wide "stop requested" flag. Handlers that sleep on purpose
// (delay_ms, chunk_delay_ms) poll it so SIGTERM ends the server promptly even
// while many slow streams are open.
#pragma once

namespace fake_upstream {

void requestStop();
bool stopRequested();

// Sleeps `ms` milliseconds unless a stop is requested first; returns false if
// it was cut short.
bool sleepUnlessStopped(int ms);

}  // namespace fake_upstream
