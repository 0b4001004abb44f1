#include "chat/sse_bounds.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace modelgw::chat {
namespace {

TEST(SseBounds, EventsWithinBoundsPass) {
  SseBounds b(16, 64);
  EXPECT_TRUE(b.feed("data: {\"a\":1}\n\ndata: {\"b\":2}\n\n"));
  EXPECT_TRUE(b.feed("data: x\r\n\r\n"));
}

TEST(SseBounds, ALineOverItsBoundFails) {
  SseBounds b(16, 1024);
  EXPECT_FALSE(b.feed("data: " + std::string(20, 'x') + "\n"));
  EXPECT_STREQ(b.passed(), "line");
}

TEST(SseBounds, ALineSplitAcrossPiecesIsCountedWhole) {
  SseBounds b(16, 1024);
  EXPECT_TRUE(b.feed("data: 0123"));
  EXPECT_TRUE(b.feed("456789"));
  EXPECT_FALSE(b.feed("abcdef"));  // 22 bytes without a line end
}

TEST(SseBounds, ALineEndResetsTheLineCount) {
  SseBounds b(16, 1024);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(b.feed("data: 012345678\n\n"));
}

TEST(SseBounds, AnEventOfManyShortLinesFailsAtTheEventBound) {
  SseBounds b(16, 64);
  bool ok = true;
  for (int i = 0; i < 20 && ok; ++i) ok = b.feed("data: 0123456\n");  // no blank line: one event
  EXPECT_FALSE(ok);
  EXPECT_STREQ(b.passed(), "event");
}

TEST(SseBounds, CrLfBlankLinesEndEventsEvenWhenSplit) {
  SseBounds b(64, 40);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(b.feed("data: 0123456789\r\n\r"));
    ASSERT_TRUE(b.feed("\n"));
  }
}

// An event's line ends count toward its size, but only a byte of content can
// take it past the bound: the blank line that ends an event whose last line
// end reached bound + 1 is no reason to refuse it, in one piece or byte by
// byte (found by the upstream_body fuzz target).
TEST(SseBounds, TheBlankLineEndingAnEventAtItsBoundPasses) {
  const std::string stream = "1234567\n\ndata: x\n\n";  // 7 bytes and a line end: 8
  SseBounds whole(64, 7);
  EXPECT_TRUE(whole.feed(stream)) << whole.passed();
  SseBounds bytewise(64, 7);
  for (const char c : stream) ASSERT_TRUE(bytewise.feed(std::string_view(&c, 1))) << bytewise.passed();
}

TEST(SseBounds, ContentAfterAnEventsLineEndAtItsBoundFails) {
  SseBounds b(64, 7);
  EXPECT_TRUE(b.feed("1234567\n"));
  EXPECT_FALSE(b.feed("x"));  // 9 bytes in one event
  EXPECT_STREQ(b.passed(), "event");
}

}  // namespace
}  // namespace modelgw::chat
