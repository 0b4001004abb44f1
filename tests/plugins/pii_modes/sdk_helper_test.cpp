// The pieces of modelgw/pii_plugin.hpp a mode plugin may use on their own:
// the contract check of a text, tags, the block reason, placeholder formats,
// and the wiping allocator.
#include <modelgw/pii_plugin.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

using mgw::pii::PlaceholderFormat;

std::string format(const PlaceholderFormat& f, std::string_view tag, std::uint64_t n) {
  std::string out = "<";
  f.append(out, tag, n);
  return out;
}

TEST(SdkPlaceholderFormat, DefaultsToTagUnderscoreN) {
  EXPECT_EQ(format(PlaceholderFormat{}, "EMAIL", 3), "<[EMAIL_3]");
  std::string problem;
  const auto parsed = PlaceholderFormat::parse(PlaceholderFormat::kDefault, problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(format(*parsed, "PAYMENT_CARD", 12), "<[PAYMENT_CARD_12]");
}

TEST(SdkPlaceholderFormat, RepeatsFieldsAndKeepsLiterals) {
  std::string problem;
  const auto f = PlaceholderFormat::parse("{N}:{TAG}/{TAG}-{N}", problem);
  ASSERT_TRUE(f) << problem;
  EXPECT_EQ(format(*f, "IP", 7), "<7:IP/IP-7");
}

TEST(SdkPlaceholderFormat, SaysWhatIsWrong) {
  std::string problem;
  EXPECT_FALSE(PlaceholderFormat::parse("[{TAG}]", problem));
  EXPECT_EQ(problem, "lacks {N}");
  EXPECT_FALSE(PlaceholderFormat::parse("{N}{", problem));
  EXPECT_EQ(problem, "has a brace that is not part of {TAG} or {N}");
  EXPECT_FALSE(PlaceholderFormat::parse(std::string(PlaceholderFormat::kMaxSize + 1, 'x'), problem));
}

TEST(SdkTag, UpperCasesAsciiOnly) {
  EXPECT_EQ(mgw::pii::tag("date_of_birth"), "DATE_OF_BIRTH");
  EXPECT_EQ(mgw::pii::tag("x-1\xc3\xa9"), "X-1\xc3\xa9");
  EXPECT_EQ(mgw::pii::tag(""), "");
}

struct Spec {
  std::string text;
  std::vector<mgw_pii_finding> findings;
  mgw_pii_text get() const {
    mgw_pii_text t{};
    t.struct_size = sizeof t;
    t.text = mgw::str(text);
    t.findings = findings.data();
    t.finding_count = findings.size();
    t.finding_size = sizeof(mgw_pii_finding);
    return t;
  }
};

TEST(SdkText, ChecksBoundsOrderAndSizes) {
  Spec s{"0123456789",
         {{mgw::str("ssn"), 0, 3, 1}, {mgw::str("email"), 3, 2, 0}, {mgw::str("ssn"), 8, 2, 1}}};
  mgw_pii_text t = s.get();
  EXPECT_EQ(mgw::pii::Text::check(&t), nullptr);
  s.findings[2].length = 3;
  t = s.get();
  EXPECT_STREQ(mgw::pii::Text::check(&t), "a finding lies outside the text");
  s.findings[2].length = 2;
  s.findings[1].offset = 2;
  t = s.get();
  EXPECT_STREQ(mgw::pii::Text::check(&t), "findings overlap or are not sorted by offset");
  EXPECT_STREQ(mgw::pii::Text::check(nullptr), "no text");
}

TEST(SdkText, CriticalReasonListsDistinctCriticalCategoriesInOrder) {
  const std::string text = "0123456789";
  const std::vector<mgw_pii_finding> f = {
      {mgw::str("email"), 0, 1, 0}, {mgw::str("ssn"), 1, 1, 1},   {mgw::str("payment_card"), 2, 1, 1},
      {mgw::str("ssn"), 3, 1, 1},   {mgw::str("phone"), 4, 1, 0}, {mgw::str("payment_card"), 5, 1, 1}};
  mgw_pii_text t{};
  t.struct_size = sizeof t;
  t.text = mgw::str(text);
  t.findings = f.data();
  t.finding_count = f.size();
  t.finding_size = sizeof(mgw_pii_finding);
  ASSERT_EQ(mgw::pii::Text::check(&t), nullptr);
  const mgw::pii::Text checked(t);
  EXPECT_EQ(mgw::pii::critical_reason(checked), "ssn,payment_card");
  EXPECT_EQ(checked.value(2), "2");
}

TEST(SdkDecision, RefusesToDecideTwice) {
  const std::string text = "ab";
  const mgw_pii_finding f{mgw::str("email"), 0, 1, 0};
  mgw_pii_text t{};
  t.struct_size = sizeof t;
  t.text = mgw::str(text);
  t.findings = &f;
  t.finding_count = 1;
  t.finding_size = sizeof f;
  const mgw::pii::Text checked(t);
  mgw::pii::Decision d(checked);
  d.replace("x");
  EXPECT_THROW(d.reject("email"), std::logic_error);
  EXPECT_THROW(d.record(1), std::out_of_range);
}

TEST(SdkWipingAllocator, WorksAsAContainerAllocator) {
  using Map = std::map<mgw::pii::SecretString, int, std::less<>,
                       mgw::pii::WipingAllocator<std::pair<const mgw::pii::SecretString, int>>>;
  Map m;
  for (int i = 0; i < 100; ++i)
    m.emplace(mgw::pii::SecretString(40, static_cast<char>('a' + i % 26)) + "x", i);
  EXPECT_EQ(m.count(std::string_view(std::string(40, 'a') + "x")), 1u);
  m.clear();
  EXPECT_TRUE(m.empty());
}

}  // namespace
