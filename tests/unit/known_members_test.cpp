#include "util/known_members.h"

#include <gtest/gtest.h>

#include <array>
#include <string_view>

namespace modelgw::util {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kNames = {"model", "input", "temperature", "store"};
using Given = KnownMembers<kNames>;

TEST(KnownMembers, EachMemberIsFoundByItsNamesPlace) {
  const json body = {{"model", "m"}, {"temperature", 0.5}, {"store", nullptr}};
  const Given given(body);
  ASSERT_NE(given["model"], nullptr);
  EXPECT_EQ(*given["model"], "m");
  EXPECT_EQ(given["model"], &body.at("model")) << "a view of the body's value, not a copy";
  EXPECT_EQ(*given["temperature"], 0.5);
  EXPECT_EQ(given["input"], nullptr) << "absent";
  ASSERT_NE(given["store"], nullptr) << "a JSON null is given: the caller decides what it means";
  EXPECT_TRUE(given["store"]->is_null());
  EXPECT_EQ(given.unknown(), nullptr);
}

TEST(KnownMembers, TheFirstUnknownMemberInTheBodysOrderIsNamed) {
  const json body = {{"zeta", 1}, {"model", "m"}, {"alpha", 2}};
  const Given given(body);
  ASSERT_NE(given.unknown(), nullptr);
  EXPECT_EQ(*given.unknown(), "alpha") << "nlohmann keeps members sorted by name";
  EXPECT_EQ(*given["model"], "m") << "the known ones are read all the same";
}

TEST(KnownMembers, ABodyThatIsNotAnObjectHasNoMembers) {
  for (const json& body : {json::array({1, 2}), json("model"), json(nullptr), json(3)}) {
    const Given given(body);
    EXPECT_EQ(given["model"], nullptr) << body.dump();
    EXPECT_EQ(given.unknown(), nullptr) << body.dump();
  }
}

}  // namespace
}  // namespace modelgw::util
