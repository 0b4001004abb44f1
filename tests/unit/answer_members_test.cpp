#include "chat/answer_members.h"

#include "chat/body_members.h"
#include "util/json_dom.h"

#include <modelgw/sdk.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace modelgw::chat {
namespace {

// What the door read before the one-pass scan: a parser's verdict on
// whether the text is one JSON object.
bool parsed_object(std::string_view text) {
  const auto open = text.find_first_not_of(" \t\r\n");
  return open != std::string_view::npos && text[open] == '{' && util::is_json(text);
}

const std::string kAnswer =
    R"( {"id":"resp_1","object":"response","created_at":1700000000,"status":"completed",)"
    R"("model":"m","output":[{"type":"message","role":"assistant","content":[{"type":"output_text",)"
    R"("text":"caf\u00e9 \"q\" é ✓","annotations":[]}]}],"usage":{"input_tokens":12,)"
    R"("output_tokens":3,"total_tokens":15},"temperature":1.0,"top_p":-0.5e-2,"tools":[],"x":null,)"
    R"("ok":true,"no":false} )";

TEST(AnswerMembers, IndexesAValidObjectAsItIsWritten) {
  bool object = false;
  const auto members = index_checked_object(kAnswer, object);
  EXPECT_TRUE(object);
  ASSERT_TRUE(members.has_value());
  const auto plain = index_members(kAnswer);
  ASSERT_TRUE(plain.has_value());
  ASSERT_EQ(members->size(), plain->size());
  for (std::size_t i = 0; i < members->size(); ++i) {
    EXPECT_EQ(mgw::view((*members)[i].name), mgw::view((*plain)[i].name));
    EXPECT_EQ(mgw::view((*members)[i].value), mgw::view((*plain)[i].value));
  }
  EXPECT_EQ(mgw::view((*members)[1].value), "\"response\"");
}

TEST(AnswerMembers, AKeyWithEscapesOrGivenTwiceIsLeftToAParse) {
  for (const std::string text : {R"({"a":1,"a":2})", R"({"\u0061":1})", R"({"o":{"a":1,"a":2},"o":0})"}) {
    bool object = false;
    EXPECT_FALSE(index_checked_object(text, object).has_value()) << text;
    EXPECT_TRUE(object) << text;
  }
  // Nested keys are the parse's business: only the top level is indexed.
  bool object = false;
  EXPECT_TRUE(index_checked_object(R"({"o":{"a":1,"a":2}})", object).has_value());
  EXPECT_TRUE(object);
}

TEST(AnswerMembers, NestingPastTheScanIsJudgedByTheParser) {
  const std::string deep = "{\"a\":" + std::string(200, '[') + std::string(200, ']') + "}";
  bool object = false;
  EXPECT_FALSE(index_checked_object(deep, object).has_value());
  EXPECT_EQ(object, parsed_object(deep));
}

TEST(AnswerMembers, WhatIsNotOneObjectIsRefused) {
  for (const std::string text :
       {"", " ", "[]", "\"s\"", "null", "{", "{}{}", R"({"a":1,})", R"({"a":01})", R"({"a":"\x"})",
        "{\"a\":\"\x80\"}", "{\"a\":\"\x01\"}", R"({"a" 1})", R"({'a':1})", R"({"a":tru})", "{\"a\":1} x"}) {
    bool object = true;
    EXPECT_FALSE(index_checked_object(text, object).has_value()) << text;
    EXPECT_FALSE(object) << text;
  }
  bool object = false;
  EXPECT_TRUE(index_checked_object(" {} ", object).has_value());
  EXPECT_TRUE(object);
}

// The scan and the parser it replaced agree on every text one byte away
// from a real answer: each byte replaced by each of a set of bytes that
// matter to the grammar, and every prefix.
TEST(AnswerMembers, AgreesWithTheParserOnEveryTextOneByteAway) {
  const std::string_view bytes = "\"\\{}[]:,0-.eE+ a\x01\x7f\x80\xc3\xa9";
  int checked = 0;
  auto agree = [&](const std::string& text) {
    bool object = false;
    (void)index_checked_object(text, object);
    ASSERT_EQ(object, parsed_object(text)) << text;
    ++checked;
  };
  for (std::size_t at = 0; at < kAnswer.size(); ++at) {
    agree(kAnswer.substr(0, at));
    for (const char b : bytes) {
      std::string text = kAnswer;
      text[at] = b;
      agree(text);
    }
  }
  EXPECT_GT(checked, 5000);
}

}  // namespace
}  // namespace modelgw::chat
