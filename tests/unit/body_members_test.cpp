#include "chat/body_members.h"

#include <modelgw/sdk.hpp>

#include <gtest/gtest.h>

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
