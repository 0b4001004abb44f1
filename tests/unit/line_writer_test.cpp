// The serving process's log writer: lines from many threads reach the
// descriptor whole and in each thread's order, batched without a wake-up per
// line, and a blocked descriptor drops lines (counted) instead of blocking.
#include "logging/line_writer.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace modelgw::logging {
namespace {

using namespace std::chrono_literals;

std::string dropped_text(std::uint64_t n) {
  return "dropped " + std::to_string(n) + "\n";
}

// A pipe whose read end is drained into a string by a thread of its own.
class Pipe {
 public:
  Pipe() {
    EXPECT_EQ(::pipe(fds_), 0);
    reader_ = std::thread([this] {
      char buf[65536];
      while (true) {
        const ssize_t n = ::read(fds_[0], buf, sizeof buf);
        if (n <= 0) return;
        std::lock_guard lock(mutex_);
        text_.append(buf, static_cast<std::size_t>(n));
      }
    });
  }
  ~Pipe() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    if (reader_.joinable()) reader_.join();
    ::close(fds_[0]);
  }
  int write_end() const { return fds_[1]; }
  // What has arrived so far.
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }
  // Closes the write end and returns everything written.
  std::string finish() {
    ::close(fds_[1]);
    fds_[1] = -1;
    reader_.join();
    return text_;
  }

 private:
  int fds_[2] = {-1, -1};
  std::mutex mutex_;
  std::string text_;
  std::thread reader_;
};

TEST(LineWriterTest, LinesFromManyThreadsArriveWholeAndInOrder) {
  Pipe pipe;
  {
    LineWriter writer(pipe.write_end(), dropped_text);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&writer, t] {
        for (int i = 0; i < 2000; ++i) {
          writer.append("thread " + std::to_string(t) + " line " + std::to_string(i) + "\n");
        }
      });
    }
    for (auto& th : threads) th.join();
    writer.stop();
  }
  std::istringstream in(pipe.finish());
  std::map<int, int> next;  // thread -> next line expected
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    int t = -1, i = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "thread %d line %d", &t, &i), 2) << line;
    EXPECT_EQ(i, next[t]) << "thread " << t;
    next[t] = i + 1;
    ++lines;
  }
  EXPECT_EQ(lines, 8000);
}

TEST(LineWriterTest, ALineIsWrittenWithinTheFlushIntervalWithoutAFlush) {
  Pipe pipe;
  LineWriter writer(pipe.write_end(), dropped_text);
  writer.append("one\n");
  std::this_thread::sleep_for(LineWriter::kFlushInterval * 4);
  writer.stop();
  EXPECT_EQ(pipe.finish(), "one\n");
}

// With nothing pending the writer sleeps until a line comes (no timer); the
// line that ends each rest is still written within about the interval.
TEST(LineWriterTest, ALineAfterARestIsWrittenWithinTheInterval) {
  Pipe pipe;
  LineWriter writer(pipe.write_end(), dropped_text);
  std::string expected;
  for (int i = 0; i < 20; ++i) {
    const std::string line = "line " + std::to_string(i) + "\n";
    writer.append(line);
    expected += line;
    bool arrived = false;
    for (int polls = 0; polls < 200 && !arrived; ++polls) {  // 2 s at most
      std::this_thread::sleep_for(10ms);
      arrived = pipe.text() == expected;
    }
    ASSERT_TRUE(arrived) << "line " << i << " waits after a rest";
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 4));
  }
  writer.stop();
  EXPECT_EQ(pipe.finish(), expected);
}

TEST(LineWriterTest, AppendsAfterStopAreWrittenDirectly) {
  Pipe pipe;
  LineWriter writer(pipe.write_end(), dropped_text);
  writer.append("before\n");
  writer.stop();
  writer.stop();  // idempotent
  writer.append("after\n");
  EXPECT_EQ(pipe.finish(), "before\nafter\n");
}

TEST(LineWriterTest, ABlockedDescriptorDropsLinesAndSaysHowManyLater) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  // Nobody reads yet: the pipe fills, the writer's batch waits, the buffer
  // reaches its bound and further lines are dropped.
  ::fcntl(fds[1], F_SETFL, O_NONBLOCK);
  std::uint64_t dropped = 0;
  {
    LineWriter writer(fds[1], dropped_text, /*max_pending=*/4096);
    const std::string line(100, 'x');
    for (int i = 0; i < 5000; ++i) writer.append(line + "\n");
    dropped = writer.dropped();
    EXPECT_GT(dropped, 0u);
    // Drain so the writer can finish.
    std::string drained;
    std::thread drain([&] {
      char buf[65536];
      ssize_t n = 0;
      while ((n = ::read(fds[0], buf, sizeof buf)) > 0) drained.append(buf, static_cast<std::size_t>(n));
    });
    writer.stop();
    ::close(fds[1]);
    drain.join();
    // Every dropped line is counted on a note once writing resumes (one note
    // per batch that saw drops).
    std::uint64_t noted = 0;
    for (std::size_t at = drained.find("dropped "); at != std::string::npos;
         at = drained.find("dropped ", at + 1)) {
      noted += std::stoull(drained.substr(at + 8));
    }
    EXPECT_EQ(noted, dropped);
  }
  ::close(fds[0]);
}

}  // namespace
}  // namespace modelgw::logging
