// A plain non-blocking TCP client socket for the edge tests, which hold many
// connections open at once (tricklers, idle keep-alives) and must see how
// and when the gateway ends each one: an answer, a close or a reset. Every
// wait is bounded by the caller's deadline.
#pragma once

#include "harness/http_client.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace it {

using EdgeClock = std::chrono::steady_clock;

// "<n> ms", for failure messages.
std::string ms(EdgeClock::duration d);

class EdgeSocket {
 public:
  explicit EdgeSocket(int port);  // connected (or throws) within 5 s
  ~EdgeSocket();
  EdgeSocket(const EdgeSocket&) = delete;
  EdgeSocket& operator=(const EdgeSocket&) = delete;

  // Writes what the kernel takes now; false once the connection is gone.
  bool send(std::string_view bytes);
  // Reads whatever has arrived, without waiting.
  void poll();
  // Reads until the server closes (true) or `deadline` passes (false).
  bool wait_closed(EdgeClock::time_point deadline);
  // Reads until a whole answer has arrived (Content-Length bodies), the
  // server closes, or `deadline` passes; the answer is taken off received().
  std::optional<HttpResponse> wait_answer(EdgeClock::time_point deadline);
  void close();

  bool closed() const { return closed_; }
  bool reset() const { return reset_; }  // closed by RST rather than FIN
  EdgeClock::time_point closed_at() const { return closed_at_; }
  const std::string& received() const { return received_; }

 private:
  bool read_some(int wait_ms);

  int fd_ = -1;
  std::string received_;
  bool closed_ = false;
  bool reset_ = false;
  EdgeClock::time_point closed_at_{};
};

// The first complete answer in `bytes` (Content-Length bodies), if any;
// `consumed` (if given) is set to its length.
std::optional<HttpResponse> parse_answer(const std::string& bytes, std::size_t* consumed = nullptr);

}  // namespace it
