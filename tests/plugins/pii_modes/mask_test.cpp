// The mask mode: typed placeholders numbered per category within a request,
// the same value keeping its placeholder across the request's texts.
#include "pii_harness.h"

#include <gtest/gtest.h>

#include <string>

using namespace std::string_literals;

namespace pii_test {
namespace {

TEST(Mask, ReplacesEveryFindingWithATypedPlaceholder) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.plain("Mail ")
      .pii("email", "alice@example.com")
      .plain(" or call ")
      .pii("phone", "+1 555 0100")
      .plain(".");
  EXPECT_EQ(scope.masked(t), "Mail [EMAIL_1] or call [PHONE_1].");
}

TEST(Mask, TagIsTheCategoryInAsciiUpperCase) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.pii("payment_card", "4111111111111111")
      .plain(" ")
      .pii("date_of_birth", "1990-01-02")
      .plain(" ")
      .pii("ip_address", "10.0.0.1")
      .plain(" ")
      .pii("ssn", "078-05-1120")
      .plain(" ")
      .pii("iban", "DE89370400440532013000")
      .plain(" ")
      .pii("secret", "sk-abc")
      .plain(" ")
      .pii("employee_id2", "E-1");
  EXPECT_EQ(scope.masked(t),
            "[PAYMENT_CARD_1] [DATE_OF_BIRTH_1] [IP_ADDRESS_1] [SSN_1] [IBAN_1] [SECRET_1] [EMPLOYEE_ID2_1]");
}

TEST(Mask, MasksCriticalFindingsTooAndNeverRejects) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.plain("card ").pii("payment_card", "4111111111111111", true);
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_TRUE(a->rec.rejects.empty());
  EXPECT_EQ(a->sent, "card [PAYMENT_CARD_1]");
}

TEST(Mask, CallsReplaceOnceWithTheWholeTextAndRecordsEveryFinding) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.pii("email", "a@x.example").plain(" ").pii("email", "b@x.example", true).plain(" ").pii("phone", "555");
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  ASSERT_EQ(a->rec.replaces.size(), 1u);
  EXPECT_EQ(a->rec.replaces[0], "[EMAIL_1] [EMAIL_2] [PHONE_1]");
  ASSERT_EQ(a->rec.records.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a->rec.records[i].element, static_cast<long long>(i));
    EXPECT_EQ(a->rec.records[i].offset, t.findings[i].offset) << "records describe the original text";
  }
  EXPECT_TRUE(a->rec.records[1].critical);
}

TEST(Mask, NumbersDistinctValuesPerCategory) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.pii("email", "a@x.example")
      .plain(" ")
      .pii("phone", "555-1")
      .plain(" ")
      .pii("email", "b@x.example")
      .plain(" ")
      .pii("phone", "555-2")
      .plain(" ")
      .pii("email", "a@x.example");
  EXPECT_EQ(scope.masked(t), "[EMAIL_1] [PHONE_1] [EMAIL_2] [PHONE_2] [EMAIL_1]");
}

TEST(Mask, KeepsPlaceholdersAcrossTheTextsOfOneRequest) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec first;
  first.path = "messages[0].content";
  first.plain("from ").pii("email", "alice@example.com").plain(" to ").pii("email", "bob@example.com");
  TextSpec second;
  second.path = "messages[1].content";
  second.plain("cc ")
      .pii("email", "carol@example.com")
      .plain(", ")
      .pii("email", "bob@example.com")
      .plain(", ")
      .pii("email", "alice@example.com");
  TextSpec third;
  third.path = "messages[2].content";
  third.pii("phone", "555-0100").plain(" ").pii("email", "carol@example.com");
  EXPECT_EQ(scope.masked(first), "from [EMAIL_1] to [EMAIL_2]");
  EXPECT_EQ(scope.masked(second), "cc [EMAIL_3], [EMAIL_2], [EMAIL_1]");
  EXPECT_EQ(scope.masked(third), "[PHONE_1] [EMAIL_3]");
}

TEST(Mask, ANewScopeStartsAgainAtOne) {
  Instance mask(Mode::mask);
  TextSpec t;
  t.pii("email", "zed@example.com");
  TextSpec u;
  u.pii("email", "amy@example.com");
  {
    Scope scope(mask);
    EXPECT_EQ(scope.masked(t), "[EMAIL_1]");
    EXPECT_EQ(scope.masked(u), "[EMAIL_2]");
  }
  Scope fresh(mask);
  EXPECT_EQ(fresh.masked(u), "[EMAIL_1]");
  EXPECT_EQ(fresh.masked(t), "[EMAIL_2]");
}

TEST(Mask, InterleavedScopesDoNotShareNumbers) {
  Instance mask(Mode::mask);
  Scope one(mask);
  Scope two(mask);
  TextSpec a;
  a.pii("email", "a@x.example");
  TextSpec b;
  b.pii("email", "b@x.example");
  EXPECT_EQ(one.masked(a), "[EMAIL_1]");
  EXPECT_EQ(two.masked(b), "[EMAIL_1]");
  EXPECT_EQ(two.masked(a), "[EMAIL_2]");
  EXPECT_EQ(one.masked(b), "[EMAIL_2]");
}

TEST(Mask, ComparesEmailsIgnoringAsciiCase) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.pii("email", "Alice.Smith@Example.COM").plain(" ").pii("email", "other@example.com");
  TextSpec u;
  u.pii("email", "alice.smith@example.com").plain(" ").pii("email", "ALICE.SMITH@EXAMPLE.COM");
  EXPECT_EQ(scope.masked(t), "[EMAIL_1] [EMAIL_2]");
  EXPECT_EQ(scope.masked(u), "[EMAIL_1] [EMAIL_1]");
}

TEST(Mask, ComparesOtherCategoriesByteForByte) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.pii("secret", "sk-AbC").plain(" ").pii("secret", "sk-abc").plain(" ").pii("secret", "sk-AbC");
  EXPECT_EQ(scope.masked(t), "[SECRET_1] [SECRET_2] [SECRET_1]");
}

TEST(Mask, TheSameBytesInTwoCategoriesAreNumberedSeparately) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.pii("phone", "0780511201").plain(" ").pii("ssn", "0780511201").plain(" ").pii("ssn", "111223333");
  EXPECT_EQ(scope.masked(t), "[PHONE_1] [SSN_1] [SSN_2]");
}

TEST(Mask, HandlesFindingsAtTheEdgesAndSideBySide) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec whole;
  whole.pii("email", "only@example.com");
  EXPECT_EQ(scope.masked(whole), "[EMAIL_1]");
  TextSpec adjacent;
  adjacent.pii("phone", "555").pii("phone", "666").pii("email", "x@y.example");
  EXPECT_EQ(scope.masked(adjacent), "[PHONE_1][PHONE_2][EMAIL_2]");
}

TEST(Mask, AThousandDistinctValues) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    t.pii("email", "user" + std::to_string(i) + "@example.com").plain(" ");
    expected += "[EMAIL_" + std::to_string(i + 1) + "] ";
  }
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_EQ(a->sent, expected);
  EXPECT_EQ(a->rec.records.size(), 1000u);
}

TEST(Mask, AThousandFindingsOfTenValuesInTwoTexts) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    t.pii("phone", "555-010" + std::to_string(i % 10)).plain(",");
    expected += "[PHONE_" + std::to_string(i % 10 + 1) + "],";
  }
  EXPECT_EQ(scope.masked(t), expected);
  EXPECT_EQ(scope.masked(t), expected);
}

TEST(Mask, ReplacesByteRangesAndCopiesInvalidUtf8AndNulBytesAsTheyAre) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.plain("\xff\xfe head \0 "s)
      .pii("secret", "a\0b\xc3"s)
      .plain(" \xe2\x82 mid \0\0"s)
      .pii("secret", "a\0c"s)
      .plain("\xf0");
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_EQ(a->sent, "\xff\xfe head \0 [SECRET_1] \xe2\x82 mid \0\0[SECRET_2]\xf0"s);
  TextSpec again;
  again.pii("secret", "a\0b\xc3"s);
  EXPECT_EQ(scope.masked(again), "[SECRET_1]") << "values with NUL bytes compare by all their bytes";
}

TEST(Mask, FindingsMayCutAMultiByteCharacter) {
  Instance mask(Mode::mask);
  Scope scope(mask);
  TextSpec t;
  t.text = "caf\xc3\xa9 x";
  t.findings.push_back(Finding{"secret", 3, 1, false});  // the first byte of 'é' only
  EXPECT_EQ(scope.masked(t), "caf[SECRET_1]\xa9 x");
}

TEST(Mask, UsesTheConfiguredPlaceholderFormat) {
  Instance mask(Mode::mask, R"({"placeholder": "<{TAG}#{N}>"})");
  Scope scope(mask);
  TextSpec t;
  t.pii("email", "a@x.example")
      .plain(" ")
      .pii("ip_address", "10.1.2.3")
      .plain(" ")
      .pii("email", "b@x.example");
  EXPECT_EQ(scope.masked(t), "<EMAIL#1> <IP_ADDRESS#1> <EMAIL#2>");
}

TEST(Mask, AFormatWithoutTagNumbersStillPerCategory) {
  Instance mask(Mode::mask, R"({"placeholder": "[redacted {N}]"})");
  Scope scope(mask);
  TextSpec t;
  t.pii("email", "a@x.example").plain(" ").pii("phone", "555");
  EXPECT_EQ(scope.masked(t), "[redacted 1] [redacted 1]");
}

TEST(Mask, TheDefaultFormatIsExplicitlyAccepted) {
  Instance mask(Mode::mask, R"({"placeholder": "[{TAG}_{N}]"})");
  Scope scope(mask);
  TextSpec t;
  t.pii("email", "a@x.example");
  EXPECT_EQ(scope.masked(t), "[EMAIL_1]");
}

}  // namespace
}  // namespace pii_test
