// Capacity warnings: the limits that would stop a configuration from holding
// the streams it allows, and the defaults that hold 10,000 streams.
#include "capacity/capacity_warnings.h"
#include "app/config_loader.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace modelgw::capacity {
namespace {

config::Config load(const std::string& extra_server, const std::string& provider_extra) {
  return config::load_text("server: {" + extra_server +
                               "}\n"
                               "providers:\n"
                               "  openai: { plugin: openai, base_url: \"http://127.0.0.1:9/v1\"" +
                               provider_extra +
                               " }\n"
                               "catalog:\n"
                               "  m: { provider: openai, model: gpt-4o-mini }\n",
                           "test.yaml");
}

// A machine with room for everything.
SystemLimits roomy() {
  return SystemLimits{1'048'576, 1'048'576, 4096, 28232};
}

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

TEST(CapacityDefaults, HoldTenThousandStreamsToOneProvider) {
  const auto cfg = load("", "");
  EXPECT_GE(cfg.server.max_connections, 10000 + 256);  // streams plus probes and new requests
  ASSERT_EQ(cfg.providers.size(), 1u);
  EXPECT_GE(cfg.providers[0].max_connections, 10000);  // no queue behind the upstream cap
  EXPECT_FALSE(cfg.providers[0].max_connections_set);
  EXPECT_TRUE(capacity_warnings(cfg, roomy()).empty());
}

TEST(CapacityDefaults, ProviderCapFollowsServerMaxConnections) {
  const auto cfg = load("max_connections: 30000", "");
  EXPECT_EQ(cfg.providers[0].max_connections, 30000);
  const auto huge = load("max_connections: 500000", "");
  EXPECT_EQ(huge.providers[0].max_connections, config::kMaxUpstreamConnections);
}

TEST(CapacityWarnings, LowOpenFileLimitIsNamedWithWhatIsNeeded) {
  const auto cfg = load("", "");
  SystemLimits limits = roomy();
  limits.open_files = 1024;
  const auto lines = capacity_warnings(cfg, limits);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("open-file limit is 1024"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(std::to_string(open_files_needed(cfg))), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("LimitNOFILE"), std::string::npos) << lines[0];
}

TEST(CapacityWarnings, NeedCountsClientAndUpstreamSocketsAndAReserve) {
  const auto cfg = load("max_connections: 1000", ", max_connections: 300");
  EXPECT_EQ(open_files_needed(cfg), 1000u + 300u + kReservedFiles);
}

TEST(CapacityWarnings, AnExplicitProviderCapBelowTheClientCapIsTheBottleneck) {
  const auto cfg = load("", ", max_connections: 256");
  const auto lines = capacity_warnings(cfg, roomy());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("providers.openai.max_connections is 256"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("503"), std::string::npos) << lines[0];
  // Written, but not below: nothing to say.
  EXPECT_TRUE(capacity_warnings(load("max_connections: 256", ", max_connections: 256"), roomy()).empty());
}

TEST(CapacityWarnings, NarrowEphemeralPortRangeAndShortBacklog) {
  const auto cfg = load("", "");
  SystemLimits limits = roomy();
  limits.ephemeral_ports = 1000;
  limits.somaxconn = 128;
  const auto lines = capacity_warnings(cfg, limits);
  EXPECT_TRUE(mentions(lines, "ip_local_port_range gives 1000")) << lines.size();
  EXPECT_TRUE(mentions(lines, "net.core.somaxconn is 128")) << lines.size();
}

TEST(CapacityWarnings, UnknownLimitsWarnOfNothing) {
  EXPECT_TRUE(capacity_warnings(load("", ", max_connections: 16384"), SystemLimits{}).empty());
}

TEST(SystemLimits, ServeRunsWithTheHardOpenFileLimit) {
  const auto now = read_system_limits();
  const auto serve = limits_for_serve();
  EXPECT_GT(now.open_files, 0u);
  EXPECT_EQ(serve.open_files, std::max(now.open_files, now.open_files_hard));
}

}  // namespace
}  // namespace modelgw::capacity
