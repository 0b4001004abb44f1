// A reload keeps the restart-only sections as they run and names the ones
// the new file changed; everything routing-related comes from the new file.
#include "app/reload_plan.h"
#include "app/config_loader.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>

namespace {

using modelgw::app::keep_restart_only;
using modelgw::app::read_config_tree;

constexpr const char* kBase =
    "server: { listen: \"127.0.0.1:8080\" }\n"
    "retry: { max_attempts: 2 }\n"
    "providers:\n"
    "  p: { plugin: openai, base_url: \"http://127.0.0.1:1/v1\" }\n"
    "catalog:\n"
    "  m: { provider: p, model: x, prices: { input: 1, output: 2 } }\n";

struct TempFile {
  std::string path = "/tmp/reload-plan-test-" + std::to_string(::getpid()) + ".yaml";
  void write(const std::string& text) const { std::ofstream(path, std::ios::trunc) << text; }
  ~TempFile() { std::remove(path.c_str()); }
};

TEST(ReloadPlanTest, RestartOnlyChangesAreNamedAndKeepTheirRunningValues) {
  TempFile file;
  file.write(kBase);
  const auto running = modelgw::config::load_file(file.path);
  const auto running_tree = read_config_tree(file.path);
  ASSERT_TRUE(running_tree.is_object());

  std::string next_text = kBase;
  next_text.replace(next_text.find("8080"), 4, "9090");
  next_text.replace(next_text.find("max_attempts: 2"), 15, "max_attempts: 3");
  file.write(next_text);
  auto next = modelgw::config::load_file(file.path);
  auto next_tree = read_config_tree(file.path);
  const auto changed = keep_restart_only(running, running_tree, next, next_tree);

  EXPECT_EQ(changed, std::vector<std::string>{"server"});
  EXPECT_EQ(next.server.port, 8080);      // kept: the listener is bound
  EXPECT_EQ(next.retry.max_attempts, 3);  // taken: routing
  // The tree keeps what runs, so the same edit is reported again next time.
  EXPECT_EQ(next_tree["server"], running_tree["server"]);
}

TEST(ReloadPlanTest, UnchangedFileChangesNothing) {
  TempFile file;
  file.write(kBase);
  const auto running = modelgw::config::load_file(file.path);
  const auto tree = read_config_tree(file.path);
  auto next = running;
  auto next_tree = tree;
  EXPECT_TRUE(keep_restart_only(running, tree, next, next_tree).empty());
  EXPECT_TRUE(read_config_tree("/nonexistent/modelgw.yaml").is_null());
}

}  // namespace
