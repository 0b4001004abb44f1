// The anchor-file reader of `modelgw audit verify --anchor`: checkpoint lines
// of the process log in either format (and behind a journal's prefix) are
// read; every other line, and every malformed or oversized one, is ignored
// without harm; the anchors kept stay within a bound.
#include "audit/audit_anchors.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

namespace modelgw::audit {
namespace {

const std::string kAnchorHashA(64, 'a');
const std::string kAnchorHashB(64, 'b');

TEST(AuditAnchors, JsonAndTextCheckpointLinesAreRead) {
  std::istringstream log(
      R"({"ts":"2026-11-28T10:00:00.000Z","level":"info","msg":"listening on 127.0.0.1:8080"})"
      "\n"
      R"({"ts":"2026-11-28T10:01:00.000Z","level":"info","msg":"audit checkpoint","audit_checkpoint":[[0,3,")" +
      kAnchorHashA + R"("],[7,5,")" + kAnchorHashB +
      R"("]]})"
      "\n"
      "2026-11-28T10:02:00.000Z info audit checkpoint audit_checkpoint=[[0,4,\"" +
      kAnchorHashB +
      "\"]]\n"
      "Nov 28 10:03:00 host modelgw[42]: "
      R"({"ts":"2026-11-28T10:03:00.000Z","level":"info","msg":"audit checkpoint","audit_checkpoint":[[7,9,")" +
      kAnchorHashA + "\"]]}\r\n");
  const AnchorSet set = read_anchors(log);
  EXPECT_EQ(set.lines, 3u);
  EXPECT_EQ(set.skipped, 0u);
  ASSERT_NE(set.of(0), nullptr);
  EXPECT_EQ(*set.of(0), (std::vector<Anchor>{{3, kAnchorHashA}, {4, kAnchorHashB}}));
  ASSERT_NE(set.of(7), nullptr);
  EXPECT_EQ(*set.of(7), (std::vector<Anchor>{{5, kAnchorHashB}, {9, kAnchorHashA}}));
  EXPECT_EQ(set.of(8), nullptr);
  EXPECT_EQ(set.size(), 4u);
}

TEST(AuditAnchors, TheSameAnchorTwiceIsKeptOnceAndADisagreementIsKept) {
  const std::string line = "x info audit checkpoint audit_checkpoint=[[7,5,\"" + kAnchorHashA + "\"]]\n";
  std::istringstream log(line + line + "x info audit checkpoint audit_checkpoint=[[7,5,\"" + kAnchorHashB +
                         "\"]]\n");
  const AnchorSet set = read_anchors(log);
  ASSERT_NE(set.of(7), nullptr);
  EXPECT_EQ(set.of(7)->size(), 2u) << "two hashes at one seq: one of them is not the store's";
}

TEST(AuditAnchors, LinesThatOnlyLookLikeCheckpointsAreIgnored) {
  for (const std::string& line : std::vector<std::string>{
           // Another message carrying the field, or the field inside a string.
           R"({"msg":"something else","audit_checkpoint":[[7,5,")" + kAnchorHashA + R"("]]})",
           R"({"msg":"request for \"audit_checkpoint\":[[7,5,\")" + kAnchorHashA + R"(\"]]"})",
           // Wrong shapes and values.
           R"({"msg":"audit checkpoint","audit_checkpoint":[]})",
           R"({"msg":"audit checkpoint","audit_checkpoint":[[7,0,")" + kAnchorHashA + R"("]]})",
           R"({"msg":"audit checkpoint","audit_checkpoint":[[-1,5,")" + kAnchorHashA + R"("]]})",
           R"({"msg":"audit checkpoint","audit_checkpoint":[[7,5,"ABC"]]})",
           R"({"msg":"audit checkpoint","audit_checkpoint":[[7,5,")" + std::string(64, 'A') + R"("]]})",
           R"({"msg":"audit checkpoint","audit_checkpoint":[[7,5.5,")" + kAnchorHashA + R"("]]})",
           R"({"msg":"audit checkpoint","audit_checkpoint":[[7,5,")" + kAnchorHashA + R"(",1]]})",
           R"({"msg":"audit checkpoint","audit_checkpoint":[[7,99999999999999999999,")" + kAnchorHashA +
               R"("]]})",
           "x info audit checkpoint audit_checkpoint=[[7,5,\"" + kAnchorHashA + "\"]] trailing",
           "x info audit checkpoint audit_checkpoint=[[7,5,\"" + kAnchorHashA + "\"",
           "x info audit checkpoint audit_checkpoint=",
           // One bad head spoils its line: all or nothing.
           R"({"msg":"audit checkpoint","audit_checkpoint":[[7,5,")" + kAnchorHashA + R"("],[8,1,"x"]]})",
       }) {
    EXPECT_FALSE(parse_anchor_line(line)) << line;
    std::istringstream log(line + "\n");
    const AnchorSet set = read_anchors(log);
    EXPECT_EQ(set.size(), 0u) << line;
  }
}

TEST(AuditAnchors, GarbageNeverCrashesTheReader) {
  std::mt19937 random(24);
  const std::string alphabet = "{}[]\",:=0123456789abcdef audit_checkpoint\n\r\\\x01\xff";
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const std::size_t length = random() % 4096;
    for (std::size_t i = 0; i < length; ++i) text += alphabet[random() % alphabet.size()];
    if (round % 2 == 0) text = "x info audit checkpoint audit_checkpoint=" + text;
    std::istringstream log(text);
    const AnchorSet set = read_anchors(log);
    EXPECT_LE(set.size(), kMaxAnchors);
  }
}

TEST(AuditAnchors, AnOverlongLineIsSkippedAndTheNextOneRead) {
  const std::string good = "x info audit checkpoint audit_checkpoint=[[7,5,\"" + kAnchorHashA + "\"]]";
  std::string huge = "x info audit checkpoint audit_checkpoint=[";
  while (huge.size() <= kMaxLineBytes) huge += "[7,6,\"" + kAnchorHashB + "\"],";
  std::istringstream log(huge + "\n" + good + "\n" + std::string(kMaxLineBytes + 10, 'z'));
  const AnchorSet set = read_anchors(log);
  EXPECT_EQ(set.skipped, 2u);
  EXPECT_EQ(set.lines, 1u);
  ASSERT_NE(set.of(7), nullptr);
  EXPECT_EQ(*set.of(7), (std::vector<Anchor>{{5, kAnchorHashA}}));
}

TEST(AuditAnchors, PastTheBoundEachChainKeepsItsNewestAnchor) {
  constexpr std::size_t kBound = 100;
  std::ostringstream text;
  // kBound + 20 anchors over two chains, newest last.
  for (std::size_t seq = 1; seq <= kBound / 2 + 10; ++seq) {
    text << "x info audit checkpoint audit_checkpoint=[[1," << seq << ",\"" << kAnchorHashA << "\"],[2,"
         << seq << ",\"" << kAnchorHashB << "\"]]\n";
  }
  std::istringstream log(text.str());
  const AnchorSet set = read_anchors(log, kBound);
  EXPECT_TRUE(set.thinned);
  EXPECT_EQ(set.lines, kBound / 2 + 10);
  EXPECT_EQ(set.size(), 2u);
  ASSERT_NE(set.of(1), nullptr);
  ASSERT_NE(set.of(2), nullptr);
  EXPECT_EQ(*set.of(1), (std::vector<Anchor>{{static_cast<std::int64_t>(kBound / 2 + 10), kAnchorHashA}}));
  EXPECT_EQ(*set.of(2), (std::vector<Anchor>{{static_cast<std::int64_t>(kBound / 2 + 10), kAnchorHashB}}));
  // Past the bound in chains too: new chains are not taken.
  std::ostringstream many;
  for (std::size_t tenant = 1; tenant <= kBound + 10; ++tenant) {
    many << "x info audit checkpoint audit_checkpoint=[[" << tenant << ",1,\"" << kAnchorHashA << "\"]]\n";
  }
  std::istringstream chains(many.str());
  EXPECT_LE(read_anchors(chains, kBound).chains.size(), kBound + 1);
}

}  // namespace
}  // namespace modelgw::audit
