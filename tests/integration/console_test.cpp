// The web console (README "The web console"): its files served from the
// binary with headers that keep the page to its own origin, the routes it
// added for itself (/internal/v1/usage, /internal/v1/audit/verify), and the
// page itself in Debian's chromium, driven by tests/console/
// console_browser_test.mjs against a seeded gateway. The browser test needs
// /usr/bin/chromium (scripts/test installs it) and `npm ci`; without them it
// fails, it never skips.
#include "harness/checks.h"
#include "harness/stack.h"

#include <filesystem>
#include <regex>

namespace it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

fs::path console_repository_root() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path();
}

HttpResponse console_get(int port, const std::string& path, Headers headers = {}) {
  HttpRequest request;
  request.method = "GET";
  request.path = path;
  request.headers = std::move(headers);
  request.json_content_type = false;
  return http_call(port, request);
}

class ConsoleSiteTest : public SharedStackTest<ConsoleSiteTest> {};

TEST_F(ConsoleSiteTest, ServesThePageWithHeadersThatKeepItToItsOrigin) {
  // The bare prefix sends the browser to the folder its files are named from.
  auto bare = console_get(port(), "/console");
  EXPECT_EQ(bare.status, 308);
  EXPECT_EQ(bare.header("location"), "/console/");

  auto page = console_get(port(), "/console/");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<script src=\"app.js\" defer></script>"), std::string::npos);
  EXPECT_EQ(page.body.find("<script>"), std::string::npos) << "no inline script";
  const std::string csp = page.header("content-security-policy");
  for (const char* directive : {"default-src 'none'", "script-src 'self'", "connect-src 'self'",
                                "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"}) {
    EXPECT_NE(csp.find(directive), std::string::npos) << directive << " missing from " << csp;
  }
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos);
  EXPECT_EQ(csp.find("unsafe-eval"), std::string::npos);
  EXPECT_EQ(page.header("x-frame-options"), "DENY");
  EXPECT_EQ(page.header("x-content-type-options"), "nosniff");
  EXPECT_EQ(page.header("referrer-policy"), "no-referrer");
  EXPECT_EQ(page.header("cache-control"), "no-cache");
  EXPECT_EQ(page.header("set-cookie"), "");
  EXPECT_TRUE(is_request_id(page.header("x-request-id")));

  // The script, compressed for a browser that takes gzip, and revalidated by ETag.
  auto script = console_get(port(), "/console/app.js", {{"Accept-Encoding", "gzip, deflate, br"}});
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(script.header("content-encoding"), "gzip");
  EXPECT_EQ(script.header("vary"), "Accept-Encoding");
  ASSERT_GE(script.body.size(), 2U);
  EXPECT_EQ(static_cast<unsigned char>(script.body[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(script.body[1]), 0x8b);
  auto plain = console_get(port(), "/console/app.js", {{"Accept-Encoding", "gzip;q=0, identity"}});
  EXPECT_EQ(plain.header("content-encoding"), "");
  EXPECT_GT(plain.body.size(), script.body.size());
  const std::string etag = plain.header("etag");
  ASSERT_TRUE(std::regex_match(etag, std::regex("\"[0-9a-f]{32}\""))) << etag;
  EXPECT_EQ(script.header("etag"), etag);
  auto again = console_get(port(), "/console/app.js", {{"If-None-Match", "\"other\", W/" + etag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_EQ(again.body, "");
  EXPECT_EQ(again.header("content-length"), "") << "a 304 names no length (RFC 9110 8.6)";
  EXPECT_EQ(again.header("etag"), etag);

  EXPECT_EQ(console_get(port(), "/console/app.css").header("content-type"), "text/css; charset=utf-8");
}

TEST_F(ConsoleSiteTest, AnswersWhatItDoesNotServeInTheErrorEnvelope) {
  auto missing = console_get(port(), "/console/../v1/models");
  EXPECT_EQ(missing.status, 404);
  auto unknown = console_get(port(), "/console/secrets.txt");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.json()["error"]["code"], "not_found");
  EXPECT_EQ(console_get(port(), "/consoles").status, 404) << "only the prefix and what is under it";

  HttpRequest post;
  post.path = "/console/";
  post.body = "{}";
  auto refused = http_call(port(), post);
  EXPECT_EQ(refused.status, 405);
  EXPECT_EQ(refused.header("allow"), "GET");
  EXPECT_EQ(refused.json()["error"]["code"], "method_not_allowed");
}

TEST(ConsoleSettingsTest, IsOffWithOneSettingAndMovesWithAnother) {
  GatewayOptions options;
  options.extra_yaml = "console:\n  enabled: false\n";
  auto off = start_stack(options);
  EXPECT_EQ(console_get(off->port(), "/console/").status, 404);
  off.reset();

  options.extra_yaml = "console:\n  path: /ops/console\n";
  auto moved = start_stack(options);
  EXPECT_EQ(console_get(moved->port(), "/console/").status, 404);
  EXPECT_EQ(console_get(moved->port(), "/ops/console/").status, 200);
  EXPECT_EQ(console_get(moved->port(), "/ops/console").header("location"), "/ops/console/");
}

TEST(ConsoleSettingsTest, RefusesAPathThatWouldHideAnApiRoute) {
  GatewayOptions options;
  options.extra_yaml = "console:\n  path: /v1/console\n";
  Gateway gateway(options);
  auto check = gateway.cli({"check-config", gateway.config_path()});
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE(check.err.find("console.path"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("/v1"), std::string::npos) << check.err;
}

// What the console needs of the API beside /v1: any tenant's usage and the
// audit chains' verification, both for admin keys only.
class ConsoleAdminRoutesTest : public SharedStackTest<ConsoleAdminRoutesTest> {};

TEST_F(ConsoleAdminRoutesTest, InternalUsageReadsANamedTenantsRecordsForAdminKeysOnly) {
  stack().gateway->create_tenant("ops-usage");
  const auto admin = stack().gateway->create_key("ops-usage", "admin");
  const auto reader = stack().gateway->create_key("acme", "usage:read");
  ASSERT_EQ(post_chat(port(), key(), chat_body("gpt-4o-mini", "count me")).status, 200);
  ASSERT_TRUE(eventually([&] {
    return http_get(port(), "/v1/usage", reader.key).json()["totals"]["requests"].get<int>() >= 1;
  }));
  const auto own = http_get(port(), "/v1/usage?group_by=day", reader.key);
  const auto named = http_get(port(), "/internal/v1/usage?group_by=day&tenant=acme", admin.key);
  ASSERT_EQ(named.status, 200) << named.body;
  EXPECT_EQ(named.json()["data"], own.json()["data"]);
  EXPECT_EQ(named.json()["totals"], own.json()["totals"]);
  // The admin key's own tenant has nothing: the tenant named is the one read.
  EXPECT_EQ(http_get(port(), "/internal/v1/usage?tenant=ops-usage", admin.key).json()["totals"]["requests"],
            0);

  auto no_tenant = http_get(port(), "/internal/v1/usage?group_by=day", admin.key);
  EXPECT_EQ(no_tenant.status, 400);
  EXPECT_EQ(no_tenant.json()["error"]["param"], "tenant");
  auto unknown = http_get(port(), "/internal/v1/usage?tenant=nobody", admin.key);
  EXPECT_EQ(unknown.status, 404);
  auto bad = http_get(port(), "/internal/v1/usage?tenant=acme&group_by=week", admin.key);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json()["error"]["param"], "group_by");
  EXPECT_EQ(http_get(port(), "/internal/v1/usage?tenant=acme", reader.key).status, 403);
  EXPECT_EQ(http_get(port(), "/internal/v1/usage?tenant=acme").status, 401);
}

TEST_F(ConsoleAdminRoutesTest, AuditVerifyReportsEveryChainForAdminKeysOnly) {
  stack().gateway->create_tenant("ops-audit");
  const auto admin = stack().gateway->create_key("ops-audit", "admin");
  const auto auditor = stack().gateway->create_key("acme", "audit:read");
  auto all = http_get(port(), "/internal/v1/audit/verify", admin.key);
  ASSERT_EQ(all.status, 200) << all.body;
  const json body = all.json();
  EXPECT_EQ(body["object"], "audit.verification");
  EXPECT_EQ(body["intact"], true);
  EXPECT_EQ(body["macs_checked"], false);
  EXPECT_TRUE(is_request_id(body["request_id"].get<std::string>()));
  bool acme = false;
  for (const auto& chain : body["chains"]) {
    EXPECT_EQ(chain["intact"], true);
    EXPECT_TRUE(chain["fault"].is_null());
    acme = acme || chain["tenant"] == "acme";
  }
  EXPECT_TRUE(acme) << body.dump();
  auto one = http_get(port(), "/internal/v1/audit/verify?tenant=acme", admin.key).json();
  for (const auto& chain : one["chains"]) {
    EXPECT_TRUE(chain["tenant_id"] == 0 || chain["tenant"] == "acme") << chain.dump();
  }
  EXPECT_EQ(http_get(port(), "/internal/v1/audit/verify?tenant=nobody", admin.key).status, 404);
  EXPECT_EQ(http_get(port(), "/internal/v1/audit/verify?chain=1", admin.key).status, 400);
  EXPECT_EQ(http_get(port(), "/internal/v1/audit/verify", auditor.key).status, 403);
}

// The page in a browser against a gateway with usage, budgets, a credit
// account, two prompt versions and audit events.
TEST(ConsoleBrowserTest, SignsInReadsEveryViewAndChangesOnlyWhatTheKeyMay) {
  const fs::path root = console_repository_root();
  const fs::path script = root / "tests/console/console_browser_test.mjs";
  const fs::path node = find_on_path("node");
  ASSERT_FALSE(node.empty()) << "`node` is not on PATH; scripts/test installs Node.js";
  ASSERT_TRUE(fs::is_regular_file(root / "node_modules/playwright-core/package.json"))
      << "node_modules/playwright-core is missing: run `npm ci` at the repository root";
  const std::string chromium = "/usr/bin/chromium";
  ASSERT_TRUE(fs::exists(chromium)) << chromium << " is missing: scripts/test installs Debian's chromium";

  auto stack = start_stack();
  Gateway& gw = *stack->gateway;
  gw.create_tenant("ops");
  const auto admin = gw.create_key("ops", "admin");
  const auto tenant = gw.create_key("acme", "usage:read budgets:read audit:read prompts:read");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"budgets", "create", "--tenant", "acme", "--window", "month", "--limit", "50"},
           {"budgets", "create", "--tenant", "acme", "--window", "day", "--limit", "5", "--feature",
            "search"},
           {"credits", "top-up", "--tenant", "acme", "--amount", "100"}}) {
    auto r = gw.cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* text : {"Be {{tone}}.", "Be {{tone}} and brief."}) {
    HttpRequest version;
    version.path = "/internal/v1/tenants/acme/prompts/greet/versions";
    version.headers = {{"Authorization", "Bearer " + admin.key}};
    version.body =
        json({{"template", json::array({{{"role", "system"}, {"content", text}}})}, {"model", "gpt-4o-mini"}})
            .dump();
    auto r = http_call(stack->port(), version);
    ASSERT_EQ(r.status, 201) << r.body;
  }
  for (const auto& [model, feature] : std::vector<std::pair<std::string, std::string>>{
           {"gpt-4o-mini", "search"}, {"gpt-4o-mini", "search"}, {"house-chat", ""}, {"gpt-4o-mini", ""}}) {
    HttpRequest chat;
    chat.body = chat_body(model, "seed the console's usage");
    chat.headers = {{"Authorization", "Bearer " + stack->key.key}};
    if (!feature.empty()) chat.headers.emplace_back("X-Feature", feature);
    auto r = http_call(stack->port(), chat);
    ASSERT_EQ(r.status, 200) << r.body;
  }
  ASSERT_TRUE(eventually([&] {
    return http_get(stack->port(), "/v1/usage", tenant.key).json()["totals"]["requests"].get<int>() >= 4;
  }));

  const fs::path artifacts = fs::path(MODELGW_PLUGIN_DIR).parent_path() / "test-artifacts" / "console";
  fs::remove_all(artifacts);
  const Env env = {
      {"MODELGW_ROOT_URL", "http://127.0.0.1:" + std::to_string(stack->port())},
      {"MODELGW_ADMIN_KEY", admin.key},
      {"MODELGW_TENANT_KEY", tenant.key},
      {"MODELGW_TENANT", "acme"},
      {"MODELGW_ARTIFACTS", artifacts.string()},
      {"MODELGW_CHROMIUM", chromium},
      {"NO_PROXY", "127.0.0.1"},
      {"no_proxy", "127.0.0.1"},
      {"NODE_OPTIONS", ""},
  };
  const auto run = run_to_exit(node.string(), {"--test", "--test-reporter=spec", script.string()}, env, 120s);
  EXPECT_EQ(run.exit_code, 0) << "node --test " << script << " exited " << run.exit_code
                              << (run.exit_code == -1 ? " (killed after 120 s)" : "") << "\n--- stdout ---\n"
                              << run.out << "\n--- stderr ---\n"
                              << run.err;
  // The benchmark figure (README "The web console"): printed, not asserted.
  for (const auto& line : lines_containing(run.out, "console timing:")) std::cout << line << "\n";
  for (const char* view :
       {"usage", "budgets", "credits", "keys", "prompts", "audit", "status", "tenant-usage"}) {
    EXPECT_TRUE(fs::is_regular_file(artifacts / (std::string(view) + ".png"))) << "no screenshot of " << view;
  }
  // Neither key reached the log.
  EXPECT_EQ(gw.log().find(admin.key), std::string::npos);
  EXPECT_EQ(gw.log().find(tenant.key), std::string::npos);
}

}  // namespace
}  // namespace it
