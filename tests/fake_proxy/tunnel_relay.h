// A byte relay between two connected sockets, both ways at once, used for
// CONNECT tunnels, upgraded connections and the TLS terminator.
#pragma once

#include <chrono>

#include "buffered_socket.h"

namespace fake_proxy {

// Sends whatever is already buffered on either side, then relays until both
// directions have ended, a side fails, nothing moved for `idle`, or the
// process stops. A side's EOF is passed on as a half-close when the other
// side can take one (plain TCP); otherwise the relay ends there.
void relayTunnel(BufferedSocket& a, BufferedSocket& b, std::chrono::milliseconds idle);

}  // namespace fake_proxy
