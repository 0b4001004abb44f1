// The flag mode: the text goes on unchanged, every finding is recorded.
#include "pii_harness.h"

#include <gtest/gtest.h>

#include <string>

namespace pii_test {
namespace {

TEST(Flag, PassesTheTextUnchangedAndRecordsEveryFinding) {
  Instance flag(Mode::flag);
  Scope scope(flag);
  TextSpec t;
  t.plain("mail ")
      .pii("email", "alice@example.com")
      .plain(" card ")
      .pii("payment_card", "4111111111111111", true);
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_TRUE(a->rec.rejects.empty()) << "flag never rejects, critical or not";
  EXPECT_TRUE(a->rec.replaces.empty());
  EXPECT_EQ(a->sent, t.text);
  ASSERT_EQ(a->rec.records.size(), 2u);
  EXPECT_EQ(a->rec.records[0].category, "email");
  EXPECT_FALSE(a->rec.records[0].critical);
  EXPECT_EQ(a->rec.records[1].category, "payment_card");
  EXPECT_TRUE(a->rec.records[1].critical);
  EXPECT_EQ(a->rec.records[1].offset, t.findings[1].offset);
  EXPECT_EQ(a->rec.records[1].length, t.findings[1].length);
  EXPECT_EQ(a->rec.records[0].element, 0);
  EXPECT_EQ(a->rec.records[1].element, 1);
}

TEST(Flag, RecordsTheSameValueEachTimeItIsFound) {
  Instance flag(Mode::flag);
  Scope scope(flag);
  TextSpec t;
  t.pii("email", "a@b.example").plain(" ").pii("email", "a@b.example");
  EXPECT_EQ(scope.apply(t)->rec.records.size(), 2u);
  EXPECT_EQ(scope.apply(t)->rec.records.size(), 2u);
}

TEST(Flag, AThousandFindings) {
  Instance flag(Mode::flag);
  Scope scope(flag);
  TextSpec t;
  for (int i = 0; i < 1000; ++i) t.pii(i % 2 ? "phone" : "email", "v" + std::to_string(i)).plain(";");
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_EQ(a->sent, t.text);
  ASSERT_EQ(a->rec.records.size(), 1000u);
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(a->rec.records[i].element, static_cast<long long>(i));
}

}  // namespace
}  // namespace pii_test
