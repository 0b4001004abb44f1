#include "chat/body_members.h"

#include <modelgw/sdk.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace modelgw::chat {
namespace {

std::string name(const mgw_json_member& m) {
  return std::string(mgw::view(m.name));
}
std::string value(const mgw_json_member& m) {
  return std::string(mgw::view(m.value));
}

TEST(BodyMembers, IndexesEveryTopLevelMemberInOrderWithItsRawValue) {
  const std::string body =
      R"( { "model" : "gpt" , "messages":[{"role":"user","content":"a } \" ] {"}], "n": -1.5e3,)"
      R"( "stream":true, "x": null, "o": {"a": [1, {"b": "}"}]} } )";
  auto index = index_members(body);
  ASSERT_TRUE(index.has_value());
  ASSERT_EQ(index->size(), 6u);
  EXPECT_EQ(name((*index)[0]), "model");
  EXPECT_EQ(value((*index)[0]), "\"gpt\"");
  EXPECT_EQ(name((*index)[1]), "messages");
  EXPECT_EQ(value((*index)[1]), R"([{"role":"user","content":"a } \" ] {"}])");
  EXPECT_EQ(value((*index)[2]), "-1.5e3");
  EXPECT_EQ(value((*index)[3]), "true");
  EXPECT_EQ(value((*index)[4]), "null");
  EXPECT_EQ(value((*index)[5]), R"({"a": [1, {"b": "}"}]})");
}

TEST(BodyMembers, LongStringsEndAtTheirQuoteWhereverTheEscapesFall) {
  // The scan skips plain text eight bytes at a time: an escaped quote, an
  // escaped backslash or a multi-byte character at any offset of a long
  // value must neither end it early nor hide its closing quote.
  for (const std::string piece : {"\\\"", "\\\\", "\xC3\xA9", "}", "\\u0022"}) {
    for (std::size_t length = 0; length <= 40; ++length) {
      for (std::size_t at = 0; at <= length; ++at) {
        const std::string content = std::string(at, 'a') + piece + std::string(length - at, 'b');
        const std::string body = R"({"messages":[{"content":")" + content + R"("}],"n":1})";
        const auto index = index_members(body);
        ASSERT_TRUE(index.has_value()) << body;
        ASSERT_EQ(index->size(), 2u) << body;
        EXPECT_EQ(value((*index)[0]), R"([{"content":")" + content + R"("}])") << body;
        EXPECT_EQ(value((*index)[1]), "1") << body;
      }
    }
  }
}

TEST(BodyMembers, NestedValuesEndAtTheirBracketWhereverItFalls) {
  // Each kind of value, and bytes one bit away from a bracket (';' '=' 'K'
  // 'M', which the skip must pass), at any offset of a long run of digits:
  // a nested value ends at its own closing bracket, never at another.
  for (const std::string piece :
       {"[1]", "{\"a\":2}", "\"}]\"", "[[],{}]", "{}", "[{\"b\":[0]}]", ";", "=", "K", "M"}) {
    for (std::size_t at = 0; at <= 40; ++at) {
      const std::string inner = std::string(at, '1') + "," + piece + "," + std::string(40 - at, '3');
      const std::string nested = "[" + inner + ",{\"c\":[" + std::string(at, '4') + "]}]";
      const std::string body = R"({"a":)" + nested + R"(,"n":1})";
      const auto index = index_members(body);
      ASSERT_TRUE(index.has_value()) << body;
      ASSERT_EQ(index->size(), 2u) << body;
      EXPECT_EQ(value((*index)[0]), nested) << body;
      EXPECT_EQ(value((*index)[1]), "1") << body;
    }
  }
}

TEST(BodyMembers, AnEmptyObjectHasNoMembers) {
  auto index = index_members("{}");
  ASSERT_TRUE(index.has_value());
  EXPECT_TRUE(index->empty());
}

TEST(BodyMembers, ADuplicateKeyGivesNoIndex) {
  EXPECT_FALSE(index_members(R"({"model":"a","messages":[],"model":"b"})").has_value());
  std::string many = "{";
  for (int i = 0; i < 100; ++i) many += "\"k" + std::to_string(i) + "\":1,";
  many += "\"k7\":2}";
  EXPECT_FALSE(index_members(many).has_value());
}

TEST(BodyMembers, AnEscapedKeyGivesNoIndex) {
  // "mod\u0065l" is "model" to a JSON parser: the plugin must parse it itself.
  EXPECT_FALSE(index_members(R"({"mod\u0065l":"a","messages":[]})").has_value());
}

TEST(BodyMembers, NotAnObjectGivesNoIndex) {
  EXPECT_FALSE(index_members("[1,2]").has_value());
  EXPECT_FALSE(index_members("").has_value());
}

}  // namespace
}  // namespace modelgw::chat

TEST(BodyMembers, DroppingMembersKeepsTheOthersAsWritten) {
  const std::string body =
      R"({"model":"m", "logit_bias" : {"1": 2},"messages":[{"role":"user","content":"a,b"}],"seed":7})";
  auto index = modelgw::chat::index_members(body);
  ASSERT_TRUE(index);
  EXPECT_EQ(modelgw::chat::without_members(*index, {"logit_bias", "seed"}),
            R"({"model":"m","messages":[{"role":"user","content":"a,b"}]})");
  EXPECT_EQ(modelgw::chat::without_members(*index, {"model", "logit_bias", "messages", "seed"}), "{}");
}

TEST(BodyMembers, LocatesNestedValuesByPath) {
  using modelgw::chat::JsonPath;
  const std::string body = R"({"a": [1, {"b" : "x\"y"}, "z"], "c": {"d": null}})";
  // The text each path points at ("" when it is not found).
  auto text_at = [&](const JsonPath& path) {
    const auto at = modelgw::chat::locate_value(body, path);
    return at ? body.substr(at->first, at->second - at->first) : std::string();
  };
  EXPECT_EQ(text_at(JsonPath{std::string("a"), std::size_t{1}, std::string("b")}), R"("x\"y")");
  EXPECT_EQ(text_at(JsonPath{std::string("a"), std::size_t{2}}), R"("z")");
  EXPECT_FALSE(modelgw::chat::locate_value(body, JsonPath{std::string("a"), std::size_t{3}}));
  EXPECT_FALSE(modelgw::chat::locate_value(body, JsonPath{std::string("missing")}));
  // A key given twice on the way: which member is meant is not certain.
  EXPECT_FALSE(modelgw::chat::locate_value(R"({"a":"1","a":"2"})", JsonPath{std::string("a")}));
}

TEST(BodyMembers, ReplacesStringsWhereTheyAreWrittenAndKeepsTheRest) {
  using modelgw::chat::JsonPath;
  const std::string body =
      R"({"messages":[{"role":"user","content":"mail a@b.example"},{"role":"user","name":"x@y.example","content":"ok"}],"temperature":0.50})";
  auto out = modelgw::chat::replace_strings(
      body, {{JsonPath{std::string("messages"), std::size_t{0}, std::string("content")}, "mail [EMAIL_1]"},
             {JsonPath{std::string("messages"), std::size_t{1}, std::string("name")}, "[EMAIL_\"2\"]"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(
      *out,
      R"({"messages":[{"role":"user","content":"mail [EMAIL_1]"},{"role":"user","name":"[EMAIL_\"2\"]","content":"ok"}],"temperature":0.50})");
  // A path to a number is not a string to replace: the caller falls back.
  EXPECT_FALSE(modelgw::chat::replace_strings(body, {{JsonPath{std::string("temperature")}, "x"}}));
}

// A member set where it is written, or put first when absent; the absent
// case without an index gives the same text, for empty and padded objects.
TEST(BodyMembers, WithMemberReplacesOrPutsFirstAndWithNewMemberAgrees) {
  using modelgw::chat::with_member;
  using modelgw::chat::with_new_member;
  EXPECT_EQ(with_member(R"({"a":1, "max_tokens" : 5})", "max_tokens", "9"), R"({"a":1, "max_tokens" : 9})");
  for (const std::string body : {R"({"a":1})", R"(  { "a" : [1] } )", "{}", "{ \n }"}) {
    const auto indexed = with_member(body, "max_tokens", "9");
    ASSERT_TRUE(indexed) << body;
    EXPECT_EQ(with_new_member(body, "max_tokens", "9"), indexed) << body;
    EXPECT_TRUE(nlohmann::json::accept(*indexed)) << *indexed;
    EXPECT_EQ(nlohmann::json::parse(*indexed)["max_tokens"], 9) << *indexed;
  }
  EXPECT_FALSE(with_new_member("[]", "max_tokens", "9"));
}
