#include "tunnel_relay.h"

#include <Poco/Exception.h>
#include <poll.h>

#include <cerrno>

namespace fake_proxy {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kRelayPollSlice{100};

struct Direction {
  BufferedSocket& from;
  BufferedSocket& to;
  bool open = true;
};

bool flushBuffered(Direction& d) {
  if (d.from.buffer().empty()) return true;
  try {
    d.to.writeAll(d.from.buffer());
  } catch (const Poco::Exception&) {
    return false;
  }
  d.from.buffer().clear();
  return true;
}

// Moves one read's worth; false when the relay must end.
bool pump(Direction& d, std::chrono::milliseconds idle) {
  // fill() returns at once: poll() or TLS buffering said bytes are there.
  switch (d.from.fill(idle)) {
    case ReadStatus::Data:
      return flushBuffered(d);
    case ReadStatus::Eof:
      d.open = false;
      if (!d.to.halfCloseable()) return false;
      d.to.shutdownSend();
      return true;
    default:
      return false;
  }
}

}  // namespace

void relayTunnel(BufferedSocket& a, BufferedSocket& b, std::chrono::milliseconds idle) {
  Direction dirs[2] = {{a, b}, {b, a}};
  for (auto& d : dirs) {
    if (!flushBuffered(d)) return;
  }
  auto lastActivity = Clock::now();
  while (dirs[0].open || dirs[1].open) {
    if (a.runtime().stopping.load()) return;
    if (Clock::now() - lastActivity >= idle) return;
    pollfd fds[2];
    bool pending[2] = {false, false};
    int count = 0;
    Direction* polled[2] = {nullptr, nullptr};
    for (auto& d : dirs) {
      if (!d.open) continue;
      pending[count] = d.from.hasDecryptedInput();
      fds[count] = {d.from.fd(), POLLIN, 0};
      polled[count++] = &d;
    }
    // Decrypted bytes are ready now: do not sleep in poll() on top of them.
    const bool anyPending = pending[0] || pending[1];
    const int n =
        ::poll(fds, static_cast<nfds_t>(count), anyPending ? 0 : static_cast<int>(kRelayPollSlice.count()));
    if (n < 0 && errno != EINTR) return;
    for (int i = 0; i < count; ++i) {
      if (fds[i].revents == 0 && !pending[i]) continue;
      if (!pump(*polled[i], idle)) return;
      lastActivity = Clock::now();
    }
  }
}

}  // namespace fake_proxy
