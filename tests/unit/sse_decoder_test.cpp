// The SDK's SseDecoder, which every streaming provider plugin relies on.
#include <modelgw/sdk.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

std::vector<mgw::SseEvent> decode(const std::vector<std::string>& pieces) {
  mgw::SseDecoder d;
  std::vector<mgw::SseEvent> out;
  for (const auto& p : pieces) d.feed(p, [&](const mgw::SseEvent& e) { out.push_back(e); });
  return out;
}

TEST(SseDecoder, DecodesEventsWithNamesAndMultiLineData) {
  auto ev = decode({"event: delta\ndata: {\"a\":1}\n\ndata: line1\ndata: line2\nid: 7\n\n"});
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].event, "delta");
  EXPECT_EQ(ev[0].data, "{\"a\":1}");
  EXPECT_EQ(ev[1].event, "message");
  EXPECT_EQ(ev[1].data, "line1\nline2");
  EXPECT_EQ(ev[1].id, "7");
}

TEST(SseDecoder, HandlesCrLfCrAndCommentsAndEmptyEvents) {
  auto ev = decode({": keep-alive\r\n\r\ndata: a\r\n\r\ndata: b\r\rretry: 10\n\nevent: x\n\n"});
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].data, "a");
  EXPECT_EQ(ev[1].data, "b");
}

TEST(SseDecoder, SameEventsWhateverTheSplit) {
  const std::string body =
      "data: {\"x\":\"1\"}\r\n\r\n: ping\r\n\r\nevent: e\r\ndata: two\r\ndata: lines\r\n\r\n"
      "data:nospace\n\ndata: [DONE]\n\n";
  const auto whole = decode({body});
  ASSERT_EQ(whole.size(), 4u);
  EXPECT_EQ(whole[2].data, "nospace");
  std::vector<std::string> bytes;
  for (char c : body) bytes.emplace_back(1, c);
  const auto one_by_one = decode(bytes);
  ASSERT_EQ(one_by_one.size(), whole.size());
  std::mt19937 rng(42);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::string> pieces;
    for (std::size_t i = 0; i < body.size();) {
      std::size_t n = 1 + rng() % 9;
      pieces.push_back(body.substr(i, n));
      i += n;
    }
    const auto split = decode(pieces);
    ASSERT_EQ(split.size(), whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(split[i].data, whole[i].data);
      EXPECT_EQ(split[i].event, whole[i].event);
    }
  }
}

TEST(SseDecoder, FinishTellsWhetherAnEventWasLeftOpen) {
  mgw::SseDecoder d;
  d.feed("data: complete\n\n", [](const mgw::SseEvent&) {});
  EXPECT_TRUE(d.finish());
  d.feed("data: partial", [](const mgw::SseEvent&) {});
  EXPECT_FALSE(d.finish());
}

}  // namespace

namespace {

TEST(SseDecoder, DropsALeadingByteOrderMarkEvenWhenSplit) {
  auto ev = decode({"\xEF", "\xBB",
                    "\xBF"
                    "data: first\n\n"});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data, "first");
  auto no_bom =
      decode({"\xEF"
              "data: x\n\n"});  // not a full mark: the byte stays
  ASSERT_TRUE(no_bom.empty());
}

TEST(SseDecoder, BoundsAnEventThatNeverEnds) {
  mgw::SseDecoder d;
  const std::string line = "data: " + std::string(1 << 20, 'x') + "\n";
  for (int i = 0; i < 40; ++i) d.feed(line, [](const mgw::SseEvent&) {});
  EXPECT_TRUE(d.overflowed());
}

}  // namespace
