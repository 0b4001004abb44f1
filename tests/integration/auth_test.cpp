// API keys: missing, wrong, wrong scheme, wrong scope, revoked while the
// gateway runs, and usage attributed to the key's own tenant.
#include "harness/checks.h"
#include "harness/stack.h"

#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

class AuthTest : public SharedStackTest<AuthTest> {};

const std::string kHello = chat_body("gpt-4o-mini", "auth hello");

TEST_F(AuthTest, NoHeaderIs401MissingApiKey) {
  EXPECT_TRUE(IsApiError(post_chat(port(), "", kHello), 401, "authentication_error", "missing_api_key"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/models"), 401, "authentication_error", "missing_api_key"));
}

TEST_F(AuthTest, WrongKeyIs401InvalidApiKey) {
  EXPECT_TRUE(IsApiError(post_chat(port(), "sk-mgw-thisIsNotAKeyThatExists0000000000000", kHello), 401,
                         "authentication_error", "invalid_api_key"));
  // A key with one character changed.
  std::string near = key();
  near.back() = near.back() == 'A' ? 'B' : 'A';
  EXPECT_TRUE(IsApiError(post_chat(port(), near, kHello), 401, "authentication_error", "invalid_api_key"));
}

TEST_F(AuthTest, BasicSchemeIs401) {
  HttpRequest req;
  req.body = kHello;
  req.headers.emplace_back("Authorization", "Basic " + key());
  EXPECT_TRUE(IsApiError(http_call(port(), req), 401, "authentication_error", "invalid_api_key"));
}

TEST_F(AuthTest, KeyWithoutChatScopeIs403) {
  const auto reader = stack().gateway->create_key("acme", "usage:read");
  EXPECT_TRUE(
      IsApiError(post_chat(port(), reader.key, kHello), 403, "authentication_error", "permission_denied"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/models", reader.key), 403, "authentication_error",
                         "permission_denied"));
}

TEST_F(AuthTest, KeyRevokedWhileServingIsRefusedWithinTwoSeconds) {
  const auto doomed = stack().gateway->create_key("acme");
  ASSERT_EQ(post_chat(port(), doomed.key, kHello).status, 200);

  const auto revoke = stack().gateway->cli({"keys", "revoke", std::to_string(doomed.id)});
  ASSERT_EQ(revoke.exit_code, 0) << revoke.err;
  EXPECT_NE(revoke.out.find("revoked key " + std::to_string(doomed.id)), std::string::npos) << revoke.out;

  HttpResponse last;
  const auto deadline = Clock::now() + 2s;
  do {
    last = post_chat(port(), doomed.key, kHello);
    if (last.status == 401) break;
    std::this_thread::sleep_for(50ms);
  } while (Clock::now() < deadline);
  EXPECT_TRUE(IsApiError(last, 401, "authentication_error", "invalid_api_key"));
  // The suite's own key is unaffected.
  EXPECT_EQ(post_chat(port(), key(), kHello).status, 200);
}

TEST_F(AuthTest, UsageIsAttributedToEachKeysTenant) {
  stack().gateway->create_tenant("globex");
  const auto globex_key = stack().gateway->create_key("globex");
  const auto a = post_chat(port(), key(), chat_body("gpt-4o-mini", "from acme"));
  const auto g = post_chat(port(), globex_key.key, chat_body("gpt-4o-mini", "from globex"));
  ASSERT_EQ(a.status, 200);
  ASSERT_EQ(g.status, 200);

  const auto db = stack().usage();
  const auto acme_id = db.tenant_id("acme");
  const auto globex_id = db.tenant_id("globex");
  ASSERT_TRUE(acme_id && globex_id);
  ASSERT_NE(*acme_id, *globex_id);

  const auto ra = db.wait_for(a.header("x-request-id"));
  const auto rg = db.wait_for(g.header("x-request-id"));
  ASSERT_TRUE(ra && rg) << "usage records not written";
  EXPECT_EQ(ra->tenant_id, *acme_id);
  EXPECT_EQ(ra->key_id, stack().key.id);
  EXPECT_EQ(rg->tenant_id, *globex_id);
  EXPECT_EQ(rg->key_id, globex_key.id);
}

// Runs last: after every key above has been used (and misused), none is logged.
TEST_F(AuthTest, ZzLogNeverContainsClientOrProviderKeys) {
  const auto extra = stack().gateway->create_key("acme");
  post_chat(port(), extra.key + "tail", kHello);  // an invalid key that contains a valid one
  HttpRequest basic;
  basic.body = kHello;
  basic.headers.emplace_back("Authorization", "Basic " + extra.key);
  http_call(port(), basic);
  const auto last = post_chat(port(), extra.key, kHello);
  ASSERT_EQ(last.status, 200);
  ASSERT_TRUE(stack().gateway->wait_log(last.header("x-request-id"), 5s)) << stack().gateway->log();
  const std::string log = stack().gateway->log();
  EXPECT_EQ(log.find(key()), std::string::npos);
  EXPECT_EQ(log.find(extra.key), std::string::npos);
  EXPECT_EQ(log.find(kProviderKey), std::string::npos);
}

}  // namespace
}  // namespace it
