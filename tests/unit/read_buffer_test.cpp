#include "net/read_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

using modelgw::net::ReadBuffer;

namespace {

// What a socket read does: writes `bytes` into the room prepare() gave.
void read_into(ReadBuffer& b, std::string_view bytes, std::size_t room) {
  const auto into = b.prepare(room);
  ASSERT_GE(into.size(), bytes.size());
  std::memcpy(into.data(), bytes.data(), bytes.size());
  b.commit(bytes.size());
}

}  // namespace

TEST(ReadBuffer, HoldsWhatWasReadUntilItIsConsumed) {
  ReadBuffer b;
  EXPECT_TRUE(b.empty());
  read_into(b, "GET / HTTP/1.1\r\n", 2047);
  read_into(b, "Host: x\r\n\r\n", 16383);
  EXPECT_EQ(b.pending(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  b.consume(16);
  EXPECT_EQ(b.pending(), "Host: x\r\n\r\n");
  b.consume(100);  // more than is left: all of it
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.pending(), "");
}

TEST(ReadBuffer, KeepsUnreadBytesWhenItGrowsOrMovesThemToTheFront) {
  ReadBuffer b;
  std::string sent;
  std::string expected;
  // Reads of every size, each followed by a partial consume, over many rounds:
  // the view is always exactly the bytes read and not consumed, in order.
  for (int round = 0; round < 300; ++round) {
    const std::string piece(static_cast<std::size_t>(1 + (round * 37) % 700),
                            static_cast<char>('a' + round % 26));
    read_into(b, piece, piece.size() + static_cast<std::size_t>(round % 5) * 100);
    expected += piece;
    ASSERT_EQ(b.pending(), expected) << "round " << round;
    const std::size_t eat = static_cast<std::size_t>((round * 53) % (expected.size() + 1));
    b.consume(eat);
    expected.erase(0, eat);
    ASSERT_EQ(b.pending(), expected) << "round " << round;
  }
}

TEST(ReadBuffer, AnEmptyBufferIsReleasedAndANonEmptyOneKept) {
  ReadBuffer b;
  read_into(b, "partial head", 2047);
  b.release_if_empty();
  EXPECT_EQ(b.pending(), "partial head");  // a pipelined request's bytes stay
  EXPECT_GE(b.capacity(), 2047U);
  b.consume(b.size());
  b.release_if_empty();
  EXPECT_EQ(b.capacity(), 0U);  // an idle connection holds no read buffer
  read_into(b, "next", 2047);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.capacity(), 0U);
}

TEST(ReadBuffer, AReadThatFilledNothingLeavesTheBytesAsTheyWere) {
  ReadBuffer b;
  read_into(b, "abc", 16);
  b.prepare(16383);  // a read that failed (EAGAIN, EOF): commit(0)
  b.commit(0);
  EXPECT_EQ(b.pending(), "abc");
}
