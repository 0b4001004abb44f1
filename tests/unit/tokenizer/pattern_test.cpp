// to_pcre2_pattern: only \s and \S change, and into Unicode White_Space.
#include <gtest/gtest.h>

#include <stdexcept>

#include "pattern.h"
#include "test_support.h"

namespace modelgw::tokenizer::testing {
namespace {

constexpr const char* kWs = R"(\x{09}-\x{0D}\x{85}\p{Z})";

TEST(Pattern, RewritesSpaceClassesOutsideBrackets) {
  EXPECT_EQ(to_pcre2_pattern(R"(\s+)"), std::string("[") + kWs + "]+");
  EXPECT_EQ(to_pcre2_pattern(R"(\s+(?!\S))"), std::string("[") + kWs + "]+(?![^" + kWs + "])");
}

TEST(Pattern, RewritesSpaceInsideBracketsAsMembers) {
  EXPECT_EQ(to_pcre2_pattern(R"([^\s\p{L}\p{N}]+)"), std::string("[^") + kWs + R"(\p{L}\p{N}]+)");
}

TEST(Pattern, LeavesEverythingElseAlone) {
  for (const char* p : {R"((?i:'s|'t|'re|'ve|'m|'ll|'d))", R"([^\r\n\p{L}\p{N}]?+\p{L}+)", R"(\p{N}{1,3})",
                        R"([\r\n/]*)", R"(\\s)", R"([]\s])"}) {
    const std::string out = to_pcre2_pattern(p);
    if (std::string_view(p) == R"([]\s])") {
      EXPECT_EQ(out, std::string("[]") + kWs + "]");  // ']' first in a class is a member
    } else {
      EXPECT_EQ(out, p);
    }
  }
}

TEST(Pattern, RefusesWhatItCannotExpress) {
  EXPECT_THROW(to_pcre2_pattern(R"([\S])"), std::invalid_argument);
  EXPECT_THROW(to_pcre2_pattern(R"(\Q\s\E)"), std::invalid_argument);
}

TEST(Pattern, MongolianVowelSeparatorIsNotWhitespace) {
  // PCRE2's own \s matches U+180E; Rust's (tiktoken's) does not. So in
  // "\u180e't" tiktoken sees punctuation "\u180e'" then "t", where PCRE2's
  // \s would give "\u180e" then the contraction "'t". Ids from the npm package.
  for (const char* name : {"o200k_base", "cl100k_base"})
    EXPECT_EQ(find_encoding(name)->encode("\xe1\xa0\x8e't"),
              (std::vector<std::uint32_t>{157, 254, 236, 6, 83}))
        << name;
}

}  // namespace
}  // namespace modelgw::tokenizer::testing
