// The modelgw command line: exit codes (0 ok, 1 config/plugin/runtime, 2
// usage) and what it prints.
#include "harness/checks.h"
#include "harness/gateway.h"

#include <modelgw/plugin.h>

#include <sstream>

namespace it {
namespace {

using namespace std::chrono_literals;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GatewayOptions options;
    options.upstream_port = free_port();
    gateway_ = std::make_unique<Gateway>(options);
  }
  Gateway& gw() { return *gateway_; }

  std::unique_ptr<Gateway> gateway_;
};

TEST_F(CliTest, VersionPrintsThePluginAbi) {
  const auto r = run_to_exit(MODELGW_BIN, {"version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string abi = "plugin ABI " + std::to_string(MGW_ABI_MAJOR) + "." + std::to_string(MGW_ABI_MINOR);
  EXPECT_EQ(r.out.rfind("modelgw ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(abi), std::string::npos) << r.out;
}

TEST_F(CliTest, VersionNamesTheAllocatorTheBinaryRunsOn) {
  // The release binary runs on jemalloc (README.md, "Memory"); a sanitizer
  // build on the sanitizer's malloc. Read from the running process: a link
  // that dropped jemalloc would say libc.
  const auto r = run_to_exit(MODELGW_BIN, {"version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (MODELGW_EXPECT_JEMALLOC) {
    EXPECT_NE(r.out.find(", jemalloc 5."), std::string::npos) << r.out;
  } else {
    EXPECT_NE(r.out.find(", libc malloc)"), std::string::npos) << r.out;
  }
}

TEST_F(CliTest, NoCommandOrUnknownCommandIsUsageError) {
  EXPECT_EQ(run_to_exit(MODELGW_BIN, {}).exit_code, 2);
  const auto r = run_to_exit(MODELGW_BIN, {"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST_F(CliTest, TenantCreatedTwiceIsUsageError) {
  const auto first = gw().cli({"tenants", "create", "initech"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  const auto second = gw().cli({"tenants", "create", "initech"});
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_NE(second.err.find("already exists"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("initech"), std::string::npos) << second.err;
}

TEST_F(CliTest, KeysCreatePrintsOnlyTheKeyOnStdout) {
  gw().create_tenant("initech");
  const auto r = gw().cli({"keys", "create", "--tenant", "initech", "--scopes", "chat usage:read"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.back(), '\n');
  const std::string key = r.out.substr(0, r.out.size() - 1);
  EXPECT_EQ(key.find('\n'), std::string::npos) << "stdout must hold the key alone: " << r.out;
  EXPECT_EQ(key.find(' '), std::string::npos) << r.out;
  EXPECT_GE(key.size(), 32u) << key;
  EXPECT_NE(r.err.find("key id "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(key), std::string::npos) << "the key belongs on stdout only";
}

TEST_F(CliTest, KeysCreateForUnknownTenantNamesIt) {
  const auto r = gw().cli({"keys", "create", "--tenant", "ghost-corp"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ghost-corp"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CliTest, KeysCreateWithUnknownScopeIsUsageError) {
  gw().create_tenant("initech");
  const auto r = gw().cli({"keys", "create", "--tenant", "initech", "--scopes", "chat superpowers"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("superpowers"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CliTest, KeysListShowsThePrefixButNeverTheKey) {
  gw().create_tenant("initech");
  const auto one = gw().create_key("initech");
  const auto two = gw().create_key("initech", "usage:read");
  ASSERT_EQ(gw().cli({"keys", "revoke", std::to_string(two.id)}).exit_code, 0);
  const auto r = gw().cli({"keys", "list", "--tenant", "initech"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& k : {one, two}) {
    EXPECT_EQ(r.out.find(k.key), std::string::npos) << "keys list shows a whole key:\n" << r.out;
    // "sk-mgw-" and 4 characters, then "...".
    EXPECT_NE(r.out.find(k.key.substr(0, 11) + "..."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(k.key.substr(0, 16)), std::string::npos) << "more than a prefix shown:\n" << r.out;
  }
  const auto active = lines_containing(r.out, std::to_string(one.id) + "\tinitech\t");
  ASSERT_EQ(active.size(), 1u) << r.out;
  EXPECT_NE(active[0].find("active"), std::string::npos) << active[0];
  const auto revoked = lines_containing(r.out, std::to_string(two.id) + "\tinitech\t");
  ASSERT_EQ(revoked.size(), 1u) << r.out;
  EXPECT_NE(revoked[0].find("revoked"), std::string::npos) << revoked[0];
}

TEST_F(CliTest, KeysRevokeUnknownIdIsUsageError) {
  const auto r = gw().cli({"keys", "revoke", "424242"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("424242"), std::string::npos) << r.err;
}

TEST_F(CliTest, CheckConfigAcceptsTheTestConfig) {
  const auto r = run_to_exit(MODELGW_BIN, {"check-config", gw().config_path()}, gateway_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("OK"), std::string::npos) << r.out;
}

TEST_F(CliTest, CheckConfigNamesANonIntegerMaxBodyBytes) {
  gw().write_config(replace_once(gw().config_text(), "max_body_bytes: 65536", "max_body_bytes: \"big\""));
  const auto r = run_to_exit(MODELGW_BIN, {"check-config", gw().config_path()}, gateway_env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("server.max_body_bytes"), std::string::npos) << r.err;
}

TEST_F(CliTest, CheckConfigNamesAnUnknownKey) {
  gw().write_config(replace_once(gw().config_text(), "server:\n", "server:\n  max_bodee_bytes: 10\n"));
  auto r = run_to_exit(MODELGW_BIN, {"check-config", gw().config_path()}, gateway_env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("server.max_bodee_bytes"), std::string::npos) << r.err;

  gw().write_config(replace_once(gw().config_text(), "server:\n  max_bodee_bytes: 10\n", "server:\n") +
                    "telemetry: { enabled: true }\n");
  r = run_to_exit(MODELGW_BIN, {"check-config", gw().config_path()}, gateway_env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("telemetry"), std::string::npos) << r.err;
}

TEST_F(CliTest, ServeWithMissingPluginExits1NamingTheFile) {
  gw().write_config(replace_once(gw().config_text(), "plugin: openai", "plugin: nosuch"));
  const auto r = run_to_exit(MODELGW_BIN, {"serve", "--config", gw().config_path()}, gateway_env(), 30s);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string file = std::string(MODELGW_PLUGIN_DIR) + "/mgw_provider_nosuch.so";
  EXPECT_EQ(lines_containing(r.err, file).size(), 1u) << "stderr:\n" << r.err;
  EXPECT_EQ(lines_containing(r.err, "listening").size(), 0u) << r.err;
}

}  // namespace
}  // namespace it
