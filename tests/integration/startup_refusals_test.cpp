// Start-up that cannot succeed ends at once with one line naming the cause
// and a non-zero exit, never a half-started service: a port already in use,
// a foreign shared object where a plugin should be, a plugin of another
// kind. A state folder that does not exist yet is created.
#include "harness/checks.h"
#include "harness/gateway.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace it {
namespace {

using namespace std::chrono_literals;

int count_lines_containing(const std::string& text, const std::string& needle) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

// A shared object every C++ process has loaded, and that is no modelgw plugin.
std::string foreign_shared_object() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const auto at = line.find('/');
    if (at != std::string::npos && line.find("libstdc++.so") != std::string::npos) return line.substr(at);
  }
  throw std::runtime_error("libstdc++ is not mapped into this process");
}

class StartupRefusals : public ::testing::Test {
 protected:
  void SetUp() override {
    GatewayOptions options;
    options.upstream_port = free_port();
    gateway_ = std::make_unique<Gateway>(options);
  }
  Gateway& gw() { return *gateway_; }

  RunResult serve() const {
    return run_to_exit(MODELGW_BIN, {"serve", "--config", gateway_->config_path()}, gateway_env(), 30s);
  }

  std::unique_ptr<Gateway> gateway_;
};

TEST_F(StartupRefusals, APortAlreadyInUseExits1NamingTheAddress) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(gw().port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << "port " << gw().port();
  ASSERT_EQ(::listen(fd, 4), 0);

  const auto r = serve();
  ::close(fd);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string address = "127.0.0.1:" + std::to_string(gw().port());
  EXPECT_EQ(count_lines_containing(r.err, "cannot listen on " + address), 1) << r.err;
  EXPECT_EQ(count_lines_containing(r.err, "in use"), 1) << r.err;
  EXPECT_EQ(count_lines_containing(r.err, "listening"), 0) << r.err;
}

TEST_F(StartupRefusals, AForeignSharedObjectAsAPluginExits1SayingItIsNotAPlugin) {
  const std::string foreign = gw().dir() + "/mgw_provider_foreign.so";
  std::filesystem::copy_file(foreign_shared_object(), foreign);
  gw().write_config(replace_once(gw().config_text(), "plugin: openai", "plugin: " + foreign));

  const auto r = serve();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines_containing(r.err, foreign + ": does not export modelgw_plugin_entry"), 1) << r.err;
  EXPECT_EQ(count_lines_containing(r.err, "listening"), 0) << r.err;
  // check-config finds it too, before the service is ever started.
  const auto check = run_to_exit(MODELGW_BIN, {"check-config", gw().config_path()}, gateway_env(), 30s);
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_EQ(count_lines_containing(check.err, foreign), 1) << check.err;
}

TEST_F(StartupRefusals, AGarbageFileAsAPluginExits1NamingIt) {
  const std::string garbage = gw().dir() + "/mgw_provider_garbage.so";
  std::ofstream(garbage) << "this is not an ELF file\n";
  gw().write_config(replace_once(gw().config_text(), "plugin: openai", "plugin: " + garbage));

  const auto r = serve();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines_containing(r.err, garbage), 1) << r.err;
  EXPECT_EQ(count_lines_containing(r.err, "listening"), 0) << r.err;
}

TEST_F(StartupRefusals, APluginOfAnotherKindExits1NamingBothKinds) {
  const std::string storage = std::string(MODELGW_PLUGIN_DIR) + "/mgw_storage_sqlite.so";
  gw().write_config(replace_once(gw().config_text(), "plugin: openai", "plugin: " + storage));

  const auto r = serve();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines_containing(r.err, storage + ": is a storage plugin, but a provider plugin"), 1)
      << r.err;
  EXPECT_EQ(count_lines_containing(r.err, "listening"), 0) << r.err;
}

TEST(StartupStateFolder, AMissingStateFolderIsCreated) {
  GatewayOptions options;
  options.upstream_port = free_port();
  const std::string state = ::testing::TempDir() + "modelgw-state-" + std::to_string(::getpid()) + "/var/lib";
  std::filesystem::remove_all(state);
  options.db_path = state + "/modelgw.db";
  options.journal_path = state + "/usage.journal";
  Gateway gw(options);
  gw.start();
  EXPECT_TRUE(std::filesystem::exists(options.db_path));
  EXPECT_EQ(gw.stop(), 0);
  std::filesystem::remove_all(state);
}

}  // namespace
}  // namespace it
