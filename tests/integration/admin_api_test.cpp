// The internal admin surface (/internal/v1/*): the admin scope, tenants and
// their settings, API keys (create, list, revoke, rotate), the error envelope
// on every refusal, and the CLI doing the same operations on the same data.
#include "harness/checks.h"
#include "harness/stack.h"

#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

class AdminApiTest : public SharedStackTest<AdminApiTest> {
 protected:
  static const std::string& admin_key() {
    static const std::string k = stack().gateway->create_key("acme", "admin").key;
    return k;
  }
  static HttpResponse call(const std::string& method, const std::string& path, const std::string& body = "",
                           const std::string& api_key = admin_key()) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = body;
    if (!api_key.empty()) r.headers.emplace_back("Authorization", "Bearer " + api_key);
    return http_call(port(), r);
  }
  // Polls (bounded) until `key` gets `status` for a chat call.
  static int chat_status_within(const std::string& api_key, int status, std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    int last = 0;
    do {
      last = post_chat(port(), api_key, chat_body("gpt-4o-mini", "admin probe")).status;
      if (last == status) break;
      std::this_thread::sleep_for(30ms);
    } while (Clock::now() < deadline);
    return last;
  }
};

TEST_F(AdminApiTest, NeedsTheAdminScope) {
  EXPECT_TRUE(IsApiError(call("GET", "/internal/v1/tenants", "", ""), 401, "authentication_error",
                         "missing_api_key"));
  EXPECT_TRUE(IsApiError(call("GET", "/internal/v1/tenants", "", key()), 403, "authentication_error",
                         "permission_denied"));
  EXPECT_EQ(call("GET", "/internal/v1/tenants").status, 200);
}

TEST_F(AdminApiTest, CreatesListsAndShowsTenants) {
  auto created = call("POST", "/internal/v1/tenants", R"({"name":"globex"})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["name"], "globex");
  EXPECT_EQ(created.json()["object"], "tenant");
  EXPECT_EQ(created.json()["settings"], json::object());
  EXPECT_TRUE(is_request_id(created.json()["request_id"].get<std::string>()));

  auto list = call("GET", "/internal/v1/tenants").json();
  bool seen = false;
  for (const auto& t : list["data"]) seen = seen || t["name"] == "globex";
  EXPECT_TRUE(seen) << list.dump();
  EXPECT_EQ(call("GET", "/internal/v1/tenants/globex").json()["id"], created.json()["id"]);

  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/tenants", R"({"name":"globex"})"), 400,
                         "invalid_request_error", "invalid_parameter", "name"));
  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/tenants", R"({"name":"bad name!"})"), 400,
                         "invalid_request_error", "invalid_parameter", "name"));
  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/tenants", R"({})"), 400, "invalid_request_error",
                         "missing_required_field", "name"));
  EXPECT_TRUE(
      IsApiError(call("POST", "/internal/v1/tenants", "{"), 400, "invalid_request_error", "invalid_json"));
  EXPECT_TRUE(IsApiError(call("GET", "/internal/v1/tenants/nobody"), 404, "invalid_request_error",
                         "not_found", "tenant"));
}

TEST_F(AdminApiTest, MintedKeyWorksAndIsShownOnce) {
  ASSERT_EQ(call("POST", "/internal/v1/tenants", R"({"name":"initech"})").status, 201);
  auto minted = call("POST", "/internal/v1/tenants/initech/keys", R"({"scopes":["chat","prompts:read"]})");
  ASSERT_EQ(minted.status, 201) << minted.body;
  const std::string new_key = minted.json()["key"];
  EXPECT_EQ(minted.json()["scopes"], json::array({"chat", "prompts:read"}));
  EXPECT_EQ(minted.json()["tenant"], "initech");
  EXPECT_EQ(post_chat(port(), new_key, chat_body("gpt-4o-mini", "minted over http")).status, 200);

  auto list = call("GET", "/internal/v1/tenants/initech/keys");
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.json()["data"].size(), 1u);
  EXPECT_FALSE(list.json()["data"][0].contains("key"));
  EXPECT_EQ(list.body.find(new_key), std::string::npos) << "a listing must never hold a whole key";
  EXPECT_EQ(list.body.find(new_key.substr(0, 16)), std::string::npos) << "more than a prefix shown";
  EXPECT_EQ(stack().gateway->log().find(new_key), std::string::npos) << "a key reached the log";

  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/tenants/initech/keys", R"({"scopes":["root"]})"), 400,
                         "invalid_request_error", "invalid_parameter", "scopes"));
  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/tenants/nobody/keys", R"({})"), 404,
                         "invalid_request_error", "not_found", "tenant"));
}

TEST_F(AdminApiTest, RevokedKeyStopsWorking) {
  auto minted = call("POST", "/internal/v1/tenants/acme/keys", R"({"scopes":"chat"})").json();
  const std::string doomed = minted["key"];
  ASSERT_EQ(post_chat(port(), doomed, chat_body("gpt-4o-mini", "before revoke")).status, 200);
  auto revoked =
      call("POST", "/internal/v1/keys/" + std::to_string(minted["id"].get<std::int64_t>()) + "/revoke");
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_FALSE(revoked.json()["revoked_at"].is_null());
  EXPECT_EQ(chat_status_within(doomed, 401, 2s), 401);
  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/keys/999999/revoke"), 404, "invalid_request_error",
                         "not_found", "id"));
  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/keys/abc/revoke"), 400, "invalid_request_error",
                         "invalid_parameter", "id"));
}

TEST_F(AdminApiTest, RotationGivesANewKeyWithTheSameScopesAndRevokesTheOld) {
  auto minted = call("POST", "/internal/v1/tenants/acme/keys", R"({"scopes":["chat","usage:read"]})").json();
  const std::string old_key = minted["key"];
  const auto old_id = minted["id"].get<std::int64_t>();
  auto rotated = call("POST", "/internal/v1/keys/" + std::to_string(old_id) + "/rotate");
  ASSERT_EQ(rotated.status, 201) << rotated.body;
  const std::string new_key = rotated.json()["key"];
  EXPECT_NE(new_key, old_key);
  EXPECT_EQ(rotated.json()["replaces"], old_id);
  EXPECT_EQ(rotated.json()["scopes"], json::array({"chat", "usage:read"}));
  EXPECT_EQ(post_chat(port(), new_key, chat_body("gpt-4o-mini", "rotated")).status, 200);
  EXPECT_EQ(chat_status_within(old_key, 401, 2s), 401);
  EXPECT_TRUE(IsApiError(call("POST", "/internal/v1/keys/" + std::to_string(old_id) + "/rotate"), 400,
                         "invalid_request_error", "invalid_parameter", "id"))
      << "a revoked key cannot be rotated";
}

TEST_F(AdminApiTest, DisabledTenantIsRefusedAndEnabledAgain) {
  ASSERT_EQ(call("POST", "/internal/v1/tenants", R"({"name":"umbrella"})").status, 201);
  const std::string k = call("POST", "/internal/v1/tenants/umbrella/keys", R"({})").json()["key"];
  ASSERT_EQ(post_chat(port(), k, chat_body("gpt-4o-mini", "enabled")).status, 200);

  auto off = call("PATCH", "/internal/v1/tenants/umbrella/settings", R"({"disabled":true})");
  ASSERT_EQ(off.status, 200) << off.body;
  EXPECT_EQ(off.json()["settings"]["disabled"], true);
  auto refused = post_chat(port(), k, chat_body("gpt-4o-mini", "disabled"));
  EXPECT_TRUE(IsApiError(refused, 403, "authentication_error", "permission_denied")) << refused.body;

  ASSERT_EQ(call("PATCH", "/internal/v1/tenants/umbrella/settings", R"({"disabled":null})").status, 200);
  auto settings = call("GET", "/internal/v1/tenants/umbrella/settings").json();
  settings.erase("request_id");
  EXPECT_EQ(settings, json::object()) << "a member set to null is removed";
  EXPECT_EQ(post_chat(port(), k, chat_body("gpt-4o-mini", "enabled again")).status, 200);

  EXPECT_TRUE(IsApiError(call("PATCH", "/internal/v1/tenants/umbrella/settings", R"({"colour":"red"})"), 400,
                         "invalid_request_error", "invalid_parameter", "settings.colour"));
  EXPECT_TRUE(IsApiError(call("PATCH", "/internal/v1/tenants/umbrella/settings", R"({"disabled":"yes"})"),
                         400, "invalid_request_error", "invalid_parameter", "settings.disabled"));
}

TEST_F(AdminApiTest, UnknownPathsAndMethodsGetTheEnvelope) {
  EXPECT_TRUE(
      IsApiError(call("GET", "/internal/v1/nothing-here"), 404, "invalid_request_error", "not_found"));
  auto wrong = call("DELETE", "/internal/v1/tenants");
  EXPECT_TRUE(IsApiError(wrong, 405, "invalid_request_error", "method_not_allowed"));
  EXPECT_EQ(wrong.header("allow"), "GET, POST");
}

// An unknown path, tenant or prompt is named by a short excerpt, never echoed whole.
TEST_F(AdminApiTest, AHugeUnknownPathOrNameIsNotEchoed) {
  const std::string huge(20000, 'p');
  for (const std::string& path : {"/internal/v1/" + huge, "/internal/v1/tenants/" + huge + "/keys",
                                  "/internal/v1/tenants/acme/prompts/" + huge + "/versions"}) {
    const auto r =
        call(path.find("prompts") != std::string::npos ? "POST" : "GET", path, R"({"template":"x"})");
    EXPECT_GE(r.status, 400) << path.substr(0, 40);
    EXPECT_LT(r.body.size(), 1024u) << r.status << " " << r.body.substr(0, 200);
  }
  // A method the path does not allow: 405 names the path by an excerpt too.
  const auto wrong = call("PUT", "/internal/v1/tenants/" + huge);
  EXPECT_TRUE(IsApiError(wrong, 405, "invalid_request_error", "method_not_allowed"))
      << wrong.body.substr(0, 200);
  EXPECT_LT(wrong.body.size(), 1024u) << wrong.body.substr(0, 200);
  const auto chat = post_chat(port(), key(), R"({"prompt":{"name":")" + huge + R"("}})");
  EXPECT_LT(chat.body.size(), 1024u) << chat.status << " " << chat.body.substr(0, 200);
}

TEST_F(AdminApiTest, CliAndHttpShareOneStore) {
  auto made = stack().gateway->cli({"tenants", "create", "hooli"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(call("GET", "/internal/v1/tenants/hooli").status, 200);

  ASSERT_EQ(call("PATCH", "/internal/v1/tenants/hooli/settings", R"({"disabled":false})").status, 200);
  auto shown = stack().gateway->cli({"tenants", "settings", "hooli"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(json::parse(shown.out), json({{"disabled", false}}));

  auto bad = stack().gateway->cli({"tenants", "settings", "hooli", "--set", R"({"colour":1})"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("settings.colour"), std::string::npos) << bad.err;

  const auto k = stack().gateway->create_key("hooli", "chat");
  auto rotated = stack().gateway->cli({"keys", "rotate", std::to_string(k.id)});
  ASSERT_EQ(rotated.exit_code, 0) << rotated.err;
  const std::string new_key = rotated.out.substr(0, rotated.out.find('\n'));
  EXPECT_EQ(post_chat(port(), new_key, chat_body("gpt-4o-mini", "cli rotated")).status, 200);
  EXPECT_EQ(chat_status_within(k.key, 401, 2s), 401);
  auto keys = call("GET", "/internal/v1/tenants/hooli/keys").json()["data"];
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_FALSE(keys[0]["revoked_at"].is_null());
  EXPECT_TRUE(keys[1]["revoked_at"].is_null());
}

}  // namespace
}  // namespace it
