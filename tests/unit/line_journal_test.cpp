#include "util/line_journal.h"

#include "storage_fixture.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace modelgw::util {
namespace {

class LineJournalTest : public ::testing::Test {
 protected:
  modelgw::testing::TempStorage t;
  std::string path() const { return (t.dir / "lines.journal").string(); }

  static std::vector<std::string> lines(const LineJournal& j) {
    std::vector<std::string> out;
    std::string why;
    EXPECT_TRUE(j.read_lines(
        [&](std::string_view line) {
          out.emplace_back(line);
          return true;
        },
        why))
        << why;
    return out;
  }
};

TEST_F(LineJournalTest, AppendsSurviveAReopenAndATornLastLineIsSkipped) {
  {
    LineJournal j(path(), "test journal", "test.journal_path");
    std::string why;
    ASSERT_TRUE(j.append("one\ntwo\n", why)) << why;
    ASSERT_TRUE(j.append("three\n", why)) << why;
    EXPECT_EQ(j.bytes(), 14u);
  }
  std::ofstream(path(), std::ios::app) << "torn";  // a crash in the middle of a write
  LineJournal j(path(), "test journal", "test.journal_path");
  EXPECT_EQ(j.bytes(), 18u);
  EXPECT_EQ(lines(j), (std::vector<std::string>{"one", "two", "three"}));
  std::string why;
  ASSERT_TRUE(j.clear(why)) << why;
  EXPECT_EQ(j.bytes(), 0u);
  EXPECT_TRUE(lines(j).empty());
}

TEST_F(LineJournalTest, ReadingStopsWhenTheCallerSaysSo) {
  LineJournal j(path(), "test journal", "test.journal_path");
  std::string why;
  ASSERT_TRUE(j.append("a\nb\nc\n", why)) << why;
  std::vector<std::string> seen;
  EXPECT_TRUE(j.read_lines(
      [&](std::string_view line) {
        seen.emplace_back(line);
        return seen.size() < 2;
      },
      why));
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
}

TEST_F(LineJournalTest, OneProcessOwnsAJournal) {
  LineJournal first(path(), "test journal", "test.journal_path");
  try {
    LineJournal second(path(), "test journal", "test.journal_path");
    FAIL() << "a second open of a locked journal succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("test journal " + path() +
                                         ": another modelgw process uses it (set "
                                         "test.journal_path"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(LineJournalTest, AFailedAppendLeavesNothing) {
  LineJournal j("/dev/full", "test journal", "test.journal_path");
  std::string why;
  EXPECT_FALSE(j.append("one\n", why));
  EXPECT_EQ(why.find("write: "), 0u) << why;
  EXPECT_EQ(j.bytes(), 0u);
}

}  // namespace
}  // namespace modelgw::util
