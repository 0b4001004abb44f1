// The admin operations the CLI and /internal/v1 share, against a real sqlite
// store: checks, answers, and that keys never leave but once.
#include "admin/admin_service.h"
#include "auth/api_key.h"
#include "storage_fixture.h"
#include "tenants/tenant_gate.h"

#include <gtest/gtest.h>

namespace modelgw::admin {
namespace {

using nlohmann::json;

class AdminServiceTest : public ::testing::Test {
 protected:
  testing::TempStorage db;
  tenants::TenantGate gate{
      *db.storage, 60000,
      pii::PolicyDefaults{"flag", pii::CategorySet::default_critical(), {"block", "mask", "flag"}}};
  AdminService admin{AdminDeps{*db.storage,
                               {"m1", "svc-flash"},
                               nullptr,
                               &gate,
                               [] { return std::int64_t{5000}; },
                               SettingsRules{{"block", "mask", "flag"}}}};
  Actor actor{"test", ""};

  template <typename Op>
  static errors::ApiError refusal(Op&& op) {
    try {
      op();
    } catch (const AdminError& e) {
      return e.error();
    }
    ADD_FAILURE() << "expected a refusal";
    return {};
  }
};

TEST_F(AdminServiceTest, TenantLifecycle) {
  auto t = admin.create_tenant(actor, "acme");
  EXPECT_EQ(t["name"], "acme");
  EXPECT_EQ(t["created_at"], 5);
  EXPECT_EQ(t["settings"], json::object());
  EXPECT_EQ(refusal([&] { admin.create_tenant(actor, "acme"); }).param, "name");
  EXPECT_EQ(refusal([&] { admin.create_tenant(actor, ""); }).code, "invalid_parameter");
  EXPECT_EQ(refusal([&] { admin.get_tenant("none"); }).status, 404);
  EXPECT_EQ(admin.list_tenants()["data"].size(), 1u);
}

TEST_F(AdminServiceTest, SettingsMergeAndReachTheGate) {
  admin.create_tenant(actor, "acme");
  auth::Principal p{db.storage->find_tenant("acme")->id, "acme", 1, "chat", ""};
  EXPECT_FALSE(gate.check(p));
  EXPECT_EQ(admin.update_settings(actor, "acme", {{"disabled", true}})["settings"],
            json({{"disabled", true}}));
  auto refused = gate.check(p);
  ASSERT_TRUE(refused) << "the gate forgets its cached settings when they change";
  EXPECT_EQ(refused->status, 403);
  admin.update_settings(actor, "acme", {{"disabled", nullptr}});
  EXPECT_FALSE(gate.check(p));
  EXPECT_EQ(refusal([&] { admin.update_settings(actor, "acme", {{"nope", 1}}); }).param, "settings.nope");
  EXPECT_EQ(refusal([&] { admin.update_settings(actor, "acme", json::array()); }).param, "settings");
}

TEST_F(AdminServiceTest, APiiPolicyIsCheckedStoredAndReachesTheGate) {
  admin.create_tenant(actor, "acme");
  EXPECT_EQ(gate.pii_policy("acme")->mode, "flag") << "the config's default";
  const json pii = {{"mode", "mask"}, {"critical", {"email"}}, {"allow", {"help@acme.example"}}};
  EXPECT_EQ(admin.update_settings(actor, "acme", {{"pii", pii}})["settings"]["pii"], pii);
  const auto policy = gate.pii_policy("acme");
  EXPECT_EQ(policy->mode, "mask") << "the gate forgets its cached policy when the settings change";
  EXPECT_TRUE(policy->critical.contains(pii::Category::email));
  EXPECT_FALSE(policy->critical.contains(pii::Category::ssn));
  EXPECT_TRUE(policy->allow.allows(pii::Category::email, "Help@Acme.example"));
  const auto refused = refusal([&] {
    admin.update_settings(actor, "acme", {{"pii", {{"mode", "redact"}}}});
  });
  EXPECT_EQ(refused.param, "settings.pii");
  EXPECT_EQ(refused.message, "settings.pii: mode: 'redact' is not a loaded mode (off, block, flag, mask)");
  EXPECT_EQ(gate.pii_policy("acme")->mode, "mask") << "a refused change leaves the policy as it was";
  admin.update_settings(actor, "acme", {{"pii", nullptr}});
  EXPECT_EQ(gate.pii_policy("acme")->mode, "flag");
}

TEST_F(AdminServiceTest, KeysAreShownOnceAndRotateKeepsScopes) {
  admin.create_tenant(actor, "acme");
  auto k = admin.create_key(actor, "acme", json::array({"usage:read", "chat"}));
  const std::string secret = k["key"];
  EXPECT_EQ(k["scopes"], json::array({"chat", "usage:read"})) << "scopes in the documented order";
  EXPECT_EQ(db.storage->find_api_key(auth::hash_api_key(secret))->tenant_name, "acme");
  EXPECT_EQ(admin.list_keys("acme").dump().find(secret), std::string::npos);
  auto fresh = admin.rotate_key(actor, k["id"]);
  EXPECT_NE(fresh["key"], secret);
  EXPECT_EQ(fresh["scopes"], k["scopes"]);
  EXPECT_NE(db.storage->find_api_key(auth::hash_api_key(secret))->revoked_unix_ms, 0);
  EXPECT_EQ(refusal([&] { admin.rotate_key(actor, k["id"]); }).code, "invalid_parameter");
  EXPECT_EQ(refusal([&] { admin.revoke_key(actor, 999); }).status, 404);
  EXPECT_EQ(refusal([&] { admin.create_key(actor, "acme", "chat, root"); }).param, "scopes");
  EXPECT_EQ(refusal([&] { admin.create_key(actor, "acme", json::array()); }).param, "scopes");
}

TEST_F(AdminServiceTest, PromptVersionsAreCheckedNumberedAndActivated) {
  admin.create_tenant(actor, "acme");
  json spec = {{"template", {{{"role", "user"}, {"content", "{{q}}"}}}}, {"model", "m1"}};
  EXPECT_EQ(admin.add_prompt_version(actor, "acme", "p", spec)["version"], 1);
  spec["activate"] = true;
  auto v2 = admin.add_prompt_version(actor, "acme", "p", spec);
  EXPECT_EQ(v2["version"], 2);
  EXPECT_EQ(v2["active"], true);
  EXPECT_EQ(admin.activate_prompt_version(actor, "acme", "p", 1)["active"], true);
  auto listed = admin.list_prompts("acme")["data"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["version"], 1);
  EXPECT_EQ(listed[0]["versions"], 2);
  EXPECT_EQ(admin.get_prompt("acme", "p")["data"].size(), 2u);

  EXPECT_EQ(refusal([&] { admin.activate_prompt_version(actor, "acme", "p", 3); }).code, "prompt_not_found");
  EXPECT_EQ(refusal([&] { admin.get_prompt("acme", "q"); }).status, 404);
  json bad = spec;
  bad["model"] = "unknown";
  EXPECT_EQ(refusal([&] { admin.add_prompt_version(actor, "acme", "p", bad); }).code, "model_not_found");
  bad = spec;
  bad["parameters"] = {{"max_tokens", 0}};
  EXPECT_EQ(refusal([&] { admin.add_prompt_version(actor, "acme", "p", bad); }).param,
            "parameters.max_tokens");
  bad = spec;
  bad["template"] = {{{"role", "user"}, {"content", "{{"}}};
  EXPECT_EQ(refusal([&] { admin.add_prompt_version(actor, "acme", "p", bad); }).param, "template[0].content");
  bad = spec;
  bad["extra"] = 1;
  EXPECT_EQ(refusal([&] { admin.add_prompt_version(actor, "acme", "p", bad); }).param, "extra");
  EXPECT_EQ(refusal([&] { admin.add_prompt_version(actor, "acme", "../etc", spec); }).param, "name");
  EXPECT_EQ(admin.get_prompt("acme", "p")["data"].size(), 2u) << "refused versions are not stored";
}

}  // namespace
}  // namespace modelgw::admin
