// Invoking a named prompt from a chat body, against a real sqlite store:
// resolution, merging, overrides, and each refusal.
#include "prompts/prompt_invocation.h"
#include "storage_fixture.h"

#include <gtest/gtest.h>

namespace modelgw::prompts {
namespace {

using nlohmann::json;

class PromptInvocationTest : public ::testing::Test {
 protected:
  testing::TempStorage db;
  std::int64_t tenant = db.storage->create_tenant("acme", 1);
  PromptStore store{*db.storage, 0};

  std::int64_t add(const std::string& name, const std::string& text, bool activate = false) {
    plugins::PromptVersionRow row;
    row.tenant_id = tenant;
    row.name = name;
    row.template_json = json::array({{{"role", "system"}, {"content", text}}}).dump();
    row.model = "registered-model";
    row.parameters_json = R"({"temperature":0.1,"max_tokens":7})";
    return db.storage->create_prompt_version(row, activate);
  }
  std::variant<Expansion, errors::ApiError> expand(const json& body) {
    return expand_prompt(body, tenant, store);
  }
  static errors::ApiError error(const std::variant<Expansion, errors::ApiError>& r) {
    EXPECT_TRUE(std::holds_alternative<errors::ApiError>(r));
    return std::holds_alternative<errors::ApiError>(r) ? std::get<errors::ApiError>(r) : errors::ApiError{};
  }
};

TEST_F(PromptInvocationTest, ExpandsIntoAnOrdinaryChatBody) {
  add("greet", "Be {{tone}}.");
  auto r = expand({{"prompt", {{"name", "greet"}, {"variables", {{"tone", "kind"}}}}},
                   {"messages", {{{"role", "user"}, {"content", "hi"}}}},
                   {"stream", true}});
  ASSERT_TRUE(std::holds_alternative<Expansion>(r)) << error(r).message;
  const auto& e = std::get<Expansion>(r);
  EXPECT_EQ(e.name, "greet");
  EXPECT_EQ(e.version, 1);
  EXPECT_EQ(e.doc["model"], "registered-model");
  EXPECT_EQ(e.doc["messages"],
            json::parse(R"([{"role":"system","content":"Be kind."},{"role":"user","content":"hi"}])"));
  EXPECT_EQ(e.doc["temperature"], 0.1);
  EXPECT_EQ(e.doc["stream"], true);
  EXPECT_FALSE(e.doc.contains("prompt"));
  EXPECT_EQ(json::parse(e.body), e.doc);
}

TEST_F(PromptInvocationTest, RequestMembersWin) {
  add("greet", "x");
  auto r = expand(
      {{"prompt", {{"name", "greet"}}}, {"model", "mine"}, {"temperature", 1.5}, {"max_tokens", nullptr}});
  const auto& e = std::get<Expansion>(r);
  EXPECT_EQ(e.doc["model"], "mine");
  EXPECT_EQ(e.doc["temperature"], 1.5);
  EXPECT_EQ(e.doc["max_tokens"], 7) << "a null member counts as absent";
}

TEST_F(PromptInvocationTest, PinnedVersionAndOpenAIStyleStringVersion) {
  add("greet", "one");
  add("greet", "two");
  EXPECT_EQ(std::get<Expansion>(expand({{"prompt", {{"name", "greet"}}}})).version, 1);
  EXPECT_EQ(std::get<Expansion>(expand({{"prompt", {{"id", "greet"}, {"version", "2"}}}}))
                .doc["messages"][0]["content"],
            "two");
}

TEST_F(PromptInvocationTest, Refusals) {
  add("greet", "{{a}}");
  auto unknown = error(expand({{"prompt", {{"name", "nope"}}}}));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.code, "prompt_not_found");
  EXPECT_EQ(unknown.param, "prompt.name");
  auto no_version = error(expand({{"prompt", {{"name", "greet"}, {"version", 3}}}}));
  EXPECT_EQ(no_version.status, 404);
  EXPECT_EQ(no_version.param, "prompt.version");
  auto missing = error(expand({{"prompt", {{"name", "greet"}}}}));
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(missing.code, "prompt_variable_missing");
  EXPECT_EQ(missing.param, "prompt.variables.a");
  EXPECT_EQ(error(expand({{"prompt", {{"name", "greet"}, {"id", "other"}}}})).param, "prompt.id");
  EXPECT_EQ(error(expand({{"prompt", {{"name", "greet"}, {"variables", {{"a", nullptr}}}}}})).param,
            "prompt.variables.a");
  EXPECT_EQ(error(expand({{"prompt", {{"name", "greet"}, {"version", 0}}}})).param, "prompt.version");
  EXPECT_EQ(
      error(expand({{"prompt", {{"name", "greet"}, {"variables", {{"a", "x"}}}}}, {"messages", "hi"}})).param,
      "messages");
}

TEST_F(PromptInvocationTest, ClientNamesAreQuotedBounded) {
  add("greet", "{{a}}");
  const std::string huge(1 << 20, 'n');
  for (const auto& r :
       {expand({{"prompt", {{"name", huge}}}}), expand({{"prompt", {{"name", huge}, {"version", 2}}}}),
        expand({{"prompt", {{"name", "greet"}, {huge, 1}}}}),
        expand({{"prompt", {{"name", "greet"}, {"variables", {{huge, nullptr}}}}}})}) {
    const auto e = error(r);
    EXPECT_GE(e.status, 400);
    EXPECT_LT(e.message.size(), 1024u);
    EXPECT_LT(e.param.size(), 1024u);
  }
  const auto odd = error(expand({{"prompt", {{"name", "no\"such"}}}}));
  EXPECT_EQ(odd.code, "prompt_not_found");
  EXPECT_NE(odd.message.find("no\\x22such"), std::string::npos) << odd.message;
}

TEST_F(PromptInvocationTest, OtherTenantsPromptsAreInvisible) {
  add("greet", "x");
  const auto other = db.storage->create_tenant("other", 1);
  auto r = expand_prompt({{"prompt", {{"name", "greet"}}}}, other, store);
  EXPECT_EQ(error(r).code, "prompt_not_found");
}

TEST_F(PromptInvocationTest, StoreCachesUntilForgotten) {
  PromptStore cached(*db.storage, 60000);
  add("greet", "one");
  EXPECT_EQ(cached.find(tenant, "greet", 0)->version, 1);
  add("greet", "two", /*activate=*/true);
  EXPECT_EQ(cached.find(tenant, "greet", 0)->version, 1) << "cached within the TTL";
  cached.forget(tenant, "greet");
  EXPECT_EQ(cached.find(tenant, "greet", 0)->version, 2);
  EXPECT_EQ(cached.find(tenant, "absent", 0), nullptr);
}

}  // namespace
}  // namespace modelgw::prompts
