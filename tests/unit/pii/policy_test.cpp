// A tenant's PII policy: what settings.pii may hold, how it overlays the
// config's defaults, and how the allow-list compares values.
#include "pii/policy.h"

#include <modelgw/plugin.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace modelgw::pii {
namespace {

using nlohmann::json;

const std::set<std::string> kModes{"block", "mask", "flag"};

PolicyDefaults defaults() {
  return {"flag", CategorySet::default_critical(), kModes};
}

// The names plugin.h promises mode plugins (MGW_PII_*) are the detector's,
// and the critical ones by default are the ones it lists.
TEST(PiiCategories, TheHeadersVocabularyIsTheDetectors) {
  const std::map<std::string, bool> header = {{MGW_PII_EMAIL, false},       {MGW_PII_PHONE, false},
                                              {MGW_PII_IP_ADDRESS, false},  {MGW_PII_DATE_OF_BIRTH, false},
                                              {MGW_PII_PAYMENT_CARD, true}, {MGW_PII_SSN, true},
                                              {MGW_PII_IBAN, true},         {MGW_PII_SECRET, true}};
  ASSERT_EQ(header.size(), kCategoryCount);
  const CategorySet critical = CategorySet::default_critical();
  for (Category c : kAllCategories) {
    const auto it = header.find(std::string(name(c)));
    ASSERT_NE(it, header.end()) << name(c) << " is missing from plugin.h";
    EXPECT_EQ(critical.contains(c), it->second) << name(c);
  }
}

TEST(PiiPolicySettings, AcceptsEveryMemberWellFormed) {
  EXPECT_EQ(check_policy_settings(json::parse(R"({"mode":"mask","critical":["email"],"allow":["a@b.io"]})"),
                                  kModes),
            std::nullopt);
  EXPECT_EQ(check_policy_settings(json::parse(R"({"mode":"off"})"), kModes), std::nullopt);
  EXPECT_EQ(check_policy_settings(json::parse(R"({"critical":[]})"), kModes), std::nullopt);
  EXPECT_EQ(check_policy_settings(json::object(), kModes), std::nullopt);
}

TEST(PiiPolicySettings, NamesTheMemberThatIsWrong) {
  auto problem = [](const char* text) {
    return check_policy_settings(json::parse(text), kModes).value_or("ok");
  };
  EXPECT_EQ(problem(R"("mask")"), "must be an object with any of: mode, critical, allow");
  EXPECT_EQ(problem(R"({"mode":"redact"})"), "mode: 'redact' is not a loaded mode (off, block, flag, mask)");
  EXPECT_EQ(problem(R"({"mode":1})"), "mode: must be a string (off, block, flag, mask)");
  EXPECT_EQ(problem(R"({"critical":"ssn"})"), "critical: must be a list of category names");
  EXPECT_NE(problem(R"({"critical":["passport"]})").find("critical: each entry must be one of email, phone"),
            std::string::npos);
  EXPECT_EQ(problem(R"({"allow":"a@b.io"})"), "allow: must be a list of strings");
  EXPECT_EQ(problem(R"({"allow":[""]})"),
            "allow: each entry must be a non-empty string of at most 256 bytes");
  EXPECT_EQ(problem(R"({"modes":"mask"})"), "'modes' is not a known member (known: mode, critical, allow)");
  json many = {{"allow", json::array()}};
  for (int i = 0; i < 1001; ++i) many["allow"].push_back("v" + std::to_string(i));
  EXPECT_EQ(check_policy_settings(many, kModes), "allow: at most 1000 entries");
}

TEST(PiiPolicy, WithoutSettingsIsTheConfigsDefault) {
  const Policy p = make_policy(defaults(), json());
  EXPECT_EQ(p.mode, "flag");
  EXPECT_EQ(p.critical, CategorySet::default_critical());
  EXPECT_TRUE(p.allow.empty());
}

TEST(PiiPolicy, SettingsOverrideEachPart) {
  const Policy p =
      make_policy(defaults(), json::parse(R"({"mode":"block","critical":["email"],"allow":["x@y.io"]})"));
  EXPECT_EQ(p.mode, "block");
  EXPECT_TRUE(p.critical.contains(Category::email));
  EXPECT_FALSE(p.critical.contains(Category::payment_card));
  EXPECT_TRUE(p.allow.allows(Category::email, "X@Y.io"));
}

TEST(PiiPolicy, AnEmptyCriticalListMeansNothingIsCritical) {
  EXPECT_TRUE(make_policy(defaults(), json::parse(R"({"critical":[]})")).critical.empty());
}

TEST(PiiPolicy, AStoredModeThatIsNoLongerLoadedFallsBackToTheDefaultWithAWarning) {
  std::string warning;
  const Policy p = make_policy(defaults(), json::parse(R"({"mode":"redact"})"), &warning);
  EXPECT_EQ(p.mode, "flag");
  EXPECT_EQ(warning, "PII mode 'redact' is not loaded; using the default mode 'flag'");
}

TEST(PiiAllowList, ComparesEmailsCaseInsensitivelyAndOthersByLettersAndDigits) {
  AllowList allow;
  allow.add("Support@Acme.example");
  allow.add("+1 (800) 555-0100");
  EXPECT_TRUE(allow.allows(Category::email, "support@acme.EXAMPLE"));
  EXPECT_FALSE(allow.allows(Category::email, "support2@acme.example"));
  EXPECT_TRUE(allow.allows(Category::phone, "+1-800-555-0100"));
  EXPECT_TRUE(allow.allows(Category::phone, "1 800 555 0100"));
  EXPECT_FALSE(allow.allows(Category::phone, "+1-800-555-0101"));
}

TEST(PiiAllowList, AnEntryOfPunctuationOnlyAllowsNothingButItself) {
  AllowList allow;
  allow.add("---");
  EXPECT_FALSE(allow.allows(Category::phone, "+1 800"));
  EXPECT_FALSE(allow.empty());
}

TEST(PiiCategories, NamesRoundTripAndFourAreCriticalByDefault) {
  for (Category c : kAllCategories) EXPECT_EQ(category_from_name(name(c)), c);
  EXPECT_EQ(category_from_name("passport"), std::nullopt);
  const CategorySet critical = CategorySet::default_critical();
  EXPECT_TRUE(critical.contains(Category::payment_card));
  EXPECT_TRUE(critical.contains(Category::ssn));
  EXPECT_TRUE(critical.contains(Category::iban));
  EXPECT_TRUE(critical.contains(Category::secret));
  EXPECT_FALSE(critical.contains(Category::email));
  EXPECT_EQ(tag(Category::date_of_birth), "DATE_OF_BIRTH");
  EXPECT_EQ(critical_set({"email", "nonsense"}), [] {
    CategorySet s;
    s.add(Category::email);
    return s;
  }());
}

}  // namespace
}  // namespace modelgw::pii
