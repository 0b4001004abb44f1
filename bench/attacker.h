// The attacker of scenario (d): K connections held open to a proxy from one
// epoll thread, half of them idle (connected, never a byte) and half
// trickling a request head one byte every interval. A connection the server
// closes is opened again at once, as an attacker keeping up the pressure would.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

namespace bench {

struct AttackOptions {
  std::uint16_t port = 0;
  int connections = 10000;
  double open_rate = 5000;        // new connections per second (the first wave and reconnects)
  double trickle_interval_s = 2;  // one byte per trickling connection this often
};

struct AttackStats {
  int requested = 0;
  int open_now = 0;           // connected and not closed, when stats() was called
  int peak_open = 0;          // the most that were open at once
  long closed_by_server = 0;  // EOF or reset seen on an open connection
  long connect_failures = 0;  // socket/connect errors (e.g. EMFILE, refused)
  long bytes_trickled = 0;
};

class Attacker {
 public:
  explicit Attacker(const AttackOptions& options);
  ~Attacker();  // stops and closes every connection
  Attacker(const Attacker&) = delete;
  Attacker& operator=(const Attacker&) = delete;

  // Waits until all K are open at once, or `timeout_s`; returns how many are.
  int wait_open(double timeout_s) const;
  AttackStats stats() const;
  // Closes every connection and joins the thread; the final stats.
  AttackStats stop();

 private:
  void run();

  AttackOptions o_;
  std::atomic<bool> stop_{false};
  std::atomic<int> open_now_{0};
  std::atomic<int> peak_open_{0};
  std::atomic<long> closed_by_server_{0};
  std::atomic<long> connect_failures_{0};
  std::atomic<long> bytes_trickled_{0};
  std::thread thread_;
};

}  // namespace bench
