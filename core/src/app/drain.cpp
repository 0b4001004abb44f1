#include "app/drain.h"

#include <spdlog/spdlog.h>

#include <ctime>
#include <string>
#include <thread>

namespace modelgw::app {
namespace {

using Clock = std::chrono::steady_clock;

// After the calls are told to end: time for their final answers and records.
constexpr std::chrono::seconds kEndWait{2};
// After the connections are closed: time for the records of what was cut.
constexpr std::chrono::seconds kAbortWait{5};
constexpr std::chrono::milliseconds kPoll{10};

// Waits until nothing is in flight or `until`; with `signals`, a signal
// among them ends the wait early (true).
bool wait_idle(http::Listener& listener, Clock::time_point until, const sigset_t* signals) {
  while (listener.in_flight() > 0 && Clock::now() < until) {
    if (signals == nullptr) {
      std::this_thread::sleep_for(kPoll);
      continue;
    }
    const timespec poll{0, static_cast<long>(std::chrono::nanoseconds(kPoll).count())};
    const int sig = sigtimedwait(signals, nullptr, &poll);
    if (sig == SIGHUP) {
      spdlog::warn("SIGHUP during shutdown: the configuration is not reloaded");
    } else if (sig > 0) {
      spdlog::warn("received {} again: ending the drain now ({} requests still running)", signal_name(sig),
                   listener.in_flight());
      return true;
    }
  }
  return false;
}

}  // namespace

const char* signal_name(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

DrainResult drain_calls(http::Listener& listener, const sigset_t& signals, std::chrono::milliseconds grace) {
  DrainResult result;
  result.hurried = wait_idle(listener, Clock::now() + grace, &signals);
  // From here on connections are refused: the load balancer has had the
  // grace period to see /readyz fail.
  listener.stop_accepting();
  if (listener.in_flight() == 0) return result;
  result.ended = listener.in_flight();
  if (!result.hurried) {
    spdlog::warn("{} requests still running after server.shutdown_grace_ms ({} ms); ending them",
                 result.ended, grace.count());
  }
  listener.end_calls();
  wait_idle(listener, Clock::now() + kEndWait, nullptr);
  if (listener.in_flight() == 0) return result;
  // A call that does not watch its hang-up signal (one that outlives its
  // client, a plugin hook that does not return): close its connection.
  result.closed = listener.in_flight();
  spdlog::warn("{} requests did not end within {} s; closing their connections", result.closed,
               kEndWait.count());
  listener.abort_all();
  // Aborted calls still write their usage records on the way out.
  wait_idle(listener, Clock::now() + kAbortWait, nullptr);
  return result;
}

}  // namespace modelgw::app
