// Log lines from every thread, written to one descriptor (stderr) by one
// background thread in batches. A request thread only appends to a buffer
// under a mutex: no write(2), and no wake-up of the writer per line (the
// per-line wake-ups of a logger queue cost about a tenth of the gateway's CPU
// at saturation). The writer wakes kFlushInterval after the first line of a
// batch, when the buffer passes kWakeBytes, or when a line asks for a flush
// (warn and worse); with nothing pending it sleeps until a line comes.
//
// Bounded: past max_pending bytes (the descriptor is blocked: a stuck
// terminal or journal) new lines are dropped and counted, and one line says
// how many once writing resumes. A request never waits on the log.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace modelgw::logging {

class LineWriter {
 public:
  static constexpr std::chrono::milliseconds kFlushInterval{20};
  static constexpr std::size_t kWakeBytes = 64 * 1024;

  // `dropped_line(n)`: the line that says n lines were dropped, in the
  // process's log format.
  LineWriter(int fd, std::function<std::string(std::uint64_t)> dropped_line,
             std::size_t max_pending = 16 * 1024 * 1024);
  ~LineWriter();  // writes what is pending
  LineWriter(const LineWriter&) = delete;
  LineWriter& operator=(const LineWriter&) = delete;

  // Queues whole lines (each ending in '\n'); thread-safe, never blocks on I/O.
  void append(std::string_view lines);
  // Asks the writer to write what is pending now (does not wait for it).
  void flush();
  // Writes what is pending and stops the thread; later appends are written
  // by the caller directly. Idempotent.
  void stop();

  std::uint64_t dropped() const;

 private:
  void run();
  void write_all(std::string_view bytes) const;

  const int fd_;
  const std::function<std::string(std::uint64_t)> dropped_line_;
  const std::size_t max_pending_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::string pending_;
  bool urgent_ = false;
  bool idle_ = false;  // the writer sleeps with nothing pending: the next append wakes it
  bool stopping_ = false;
  bool stopped_ = false;
  std::uint64_t dropped_ = 0;
  std::uint64_t dropped_reported_ = 0;
  std::thread thread_;
};

}  // namespace modelgw::logging
