// estimate_tokens: the documented weights, and that it errs low against
// the real o200k_base count on ordinary text in several scripts.
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace modelgw::tokenizer::testing {
namespace {

TEST(Estimate, FollowsTheDocumentedWeights) {
  EXPECT_EQ(estimate_tokens(""), 0u);
  EXPECT_EQ(estimate_tokens("a"), 0u);                     // 0.17, rounded down
  EXPECT_EQ(estimate_tokens(repeat("a", 100)), 17u);       // letters: 0.17 each
  EXPECT_EQ(estimate_tokens("don't"), 0u);                 // the apostrophe weighs as a letter
  EXPECT_EQ(estimate_tokens(repeat(" ", 1000)), 0u);       // one run: 0.17
  EXPECT_EQ(estimate_tokens(repeat("a \n\t ", 50)), 17u);  // 50 letters + 50 runs
  EXPECT_EQ(estimate_tokens(repeat("7", 10)), 3u);         // digits: 0.30 each
  EXPECT_EQ(estimate_tokens(repeat("{", 10)), 4u);         // punctuation: 0.40 each
  EXPECT_EQ(estimate_tokens(repeat("ж", 100)), 17u);       // 2-byte: 0.17 each
  EXPECT_EQ(estimate_tokens(repeat("中", 10)), 5u);        // ideograph/kana: 0.50 each
  EXPECT_EQ(estimate_tokens(repeat("한", 20)), 9u);        // Hangul: 0.45 each
  EXPECT_EQ(estimate_tokens(repeat("क", 25)), 7u);         // other 3-byte: 0.28 each
  EXPECT_EQ(estimate_tokens(repeat("😀", 3)), 3u);          // 4-byte: 1 each
}

TEST(Estimate, InvalidUtf8DoesNotCrash) {
  EXPECT_EQ(estimate_tokens(repeat("\x80", 100)), 0u);  // stray continuation bytes weigh nothing
  EXPECT_EQ(estimate_tokens(repeat("\xff", 5)), 5u);    // as 4-byte lead bytes
  EXPECT_EQ(estimate_tokens("\xe4"), 0u);               // truncated at the end
}

struct Sample {
  const char* label;
  const char* text;
};

// Ordinary prose and code, one sample per script family the weights cover.
const Sample kSamples[] = {
    {"english",
     "The gateway checks every chat request before it calls a vendor. It counts the prompt tokens, adds the "
     "requested maximum output, and compares the sum with the model's context window, so that a request that "
     "cannot fit is refused early with a clear message instead of a vendor error."},
    {"german",
     "Die Bundesrepublik Deutschland ist ein Bundesstaat in Mitteleuropa. Sie besteht seit 1990 aus sechzehn "
     "Ländern und ist als freiheitlich-demokratischer und sozialer Rechtsstaat verfasst."},
    {"code",
     "for (std::size_t i = 0; i < items.size(); ++i) {\n  if (items[i].empty()) continue;\n  total += "
     "items[i].size();\n}\nreturn total;\n"},
    {"russian",
     "Москва — столица России, город федерального значения, административный центр Центрального федерального "
     "округа и центр Московской области, в состав которой не входит."},
    {"chinese", "北京是中华人民共和国的首都，也是全国的政治中心和文化中心，有着三千多年的建城史。"},
    {"japanese", "東京は日本の首都であり、世界有数の大都市です。多くの人々がここで働き、暮らしています。"},
    {"korean", "서울은 대한민국의 수도이며 정치, 경제, 문화의 중심지이다. 한강이 도시를 가로질러 흐른다."},
    {"hindi",
     "भारत दक्षिण एशिया में स्थित भारतीय उपमहाद्वीप का सबसे बड़ा देश है। भारत भौगोलिक दृष्टि से विश्व का सातवाँ सबसे बड़ा देश "
     "है।"},
    {"arabic", "القاهرة هي عاصمة جمهورية مصر العربية وأكبر مدنها، وتقع على ضفاف نهر النيل."},
    {"emoji", "Great job 🎉🎉 see you soon 👋 🙂 🚀✨"},
    {"json", R"({"id": 12345, "name": "widget", "tags": ["a", "b"], "price": 9.99, "active": true})"},
};

TEST(Estimate, ErrsLowAgainstO200kOnOrdinaryText) {
  const Encoding* o200k = find_encoding("o200k_base");
  for (const Sample& s : kSamples) {
    const std::size_t real = o200k->count(s.text);
    const std::size_t estimate = estimate_tokens(s.text);
    EXPECT_LE(estimate, real) << s.label;
    // ...but not uselessly low: at least 40% of the real count.
    EXPECT_GE(estimate * 10, real * 4) << s.label;
  }
}

TEST(Estimate, OvercountsOnlyPathologicalRepetition) {
  // The documented exception: o200k packs long runs of one letter 8 to a
  // token, the estimate assumes ~5.5 letters per token.
  EXPECT_GT(estimate_tokens(repeat("a", 1000)), find_encoding("o200k_base")->count(repeat("a", 1000)));
}

}  // namespace
}  // namespace modelgw::tokenizer::testing
