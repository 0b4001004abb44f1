// The block mode: a critical finding rejects the request, naming the critical
// categories; every finding is recorded either way.
#include "pii_harness.h"

#include <gtest/gtest.h>

#include <string>

namespace pii_test {
namespace {

TEST(Block, RejectsWithTheDistinctCriticalCategoriesInFirstSeenOrder) {
  Instance block(Mode::block);
  Scope scope(block);
  TextSpec t;
  t.plain("mail ")
      .pii("email", "alice@example.com")
      .plain(", card ")
      .pii("payment_card", "4111 1111 1111 1111", true)
      .plain(", ssn ")
      .pii("ssn", "078-05-1120", true)
      .plain(", card again ")
      .pii("payment_card", "5500 0000 0000 0004", true)
      .plain(", phone ")
      .pii("phone", "+1 555 0100");
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  ASSERT_EQ(a->rec.rejects.size(), 1u);
  EXPECT_EQ(a->rec.rejects[0], "payment_card,ssn");
  EXPECT_TRUE(a->rec.replaces.empty());
}

TEST(Block, RecordsEveryFindingCriticalOrNotWhenRejecting) {
  Instance block(Mode::block);
  Scope scope(block);
  TextSpec t;
  t.pii("email", "a@b.example")
      .plain(" ")
      .pii("ssn", "078-05-1120", true)
      .plain(" ")
      .pii("phone", "555-0100");
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  ASSERT_EQ(a->rec.records.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a->rec.records[i].category, t.findings[i].category);
    EXPECT_EQ(a->rec.records[i].offset, t.findings[i].offset);
    EXPECT_EQ(a->rec.records[i].length, t.findings[i].length);
    EXPECT_EQ(a->rec.records[i].critical, t.findings[i].critical);
    EXPECT_EQ(a->rec.records[i].element, static_cast<long long>(i))
        << "record must pass the host's own element";
  }
  EXPECT_EQ(a->rec.events.front(), "reject");
}

TEST(Block, ReasonHoldsOnlyCategoryNamesNeverAValue) {
  Instance block(Mode::block);
  Scope scope(block);
  TextSpec t;
  t.pii("secret", "sk-live-abcdef", true).plain(" ").pii("iban", "DE89370400440532013000", true);
  const auto a = scope.apply(t);
  ASSERT_EQ(a->rec.rejects.size(), 1u);
  const std::string& reason = a->rec.rejects[0];
  EXPECT_EQ(reason, "secret,iban");
  EXPECT_EQ(reason.find_first_not_of("abcdefghijklmnopqrstuvwxyz_,"), std::string::npos) << reason;
}

TEST(Block, LetsATextWithoutCriticalFindingsPassAndRecordsThem) {
  Instance block(Mode::block);
  Scope scope(block);
  TextSpec t;
  t.plain("write to ").pii("email", "bob@example.org").plain(" or ").pii("phone", "+44 20 7946 0958");
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_TRUE(a->rec.rejects.empty());
  EXPECT_TRUE(a->rec.replaces.empty());
  EXPECT_EQ(a->sent, t.text);
  ASSERT_EQ(a->rec.records.size(), 2u);
  EXPECT_EQ(a->rec.records[0].category, "email");
  EXPECT_EQ(a->rec.records[1].category, "phone");
  EXPECT_FALSE(a->rec.records[0].critical);
}

TEST(Block, DecidesEachTextOfARequestOnItsOwn) {
  Instance block(Mode::block);
  Scope scope(block);
  TextSpec first;
  first.pii("email", "x@y.example");
  TextSpec second;
  second.plain("card ").pii("payment_card", "4111111111111111", true);
  TextSpec third;
  third.pii("phone", "555-0100");
  EXPECT_TRUE(scope.apply(first)->rec.rejects.empty());
  EXPECT_EQ(scope.apply(second)->rec.rejects, std::vector<std::string>{"payment_card"});
  EXPECT_TRUE(scope.apply(third)->rec.rejects.empty());
}

TEST(Block, OneCriticalFindingAmongAThousand) {
  Instance block(Mode::block);
  Scope scope(block);
  TextSpec t;
  for (int i = 0; i < 999; ++i) t.pii("email", "user" + std::to_string(i) + "@example.com").plain(" ");
  t.pii("ssn", "078-05-1120", true);
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_EQ(a->rec.rejects, std::vector<std::string>{"ssn"});
  EXPECT_EQ(a->rec.records.size(), 1000u);
}

}  // namespace
}  // namespace pii_test
