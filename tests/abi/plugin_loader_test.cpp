// The loader's answer to each way a plugin can be wrong: one clear error that
// names the file (and, for a version mismatch, both versions), never a crash.
#include "plugins/plugin_error.h"
#include "plugins/plugin_library.h"
#include "plugins/provider.h"
#include "plugins/storage.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

using modelgw::plugins::PluginError;
using modelgw::plugins::PluginLibrary;

std::string fixture(const std::string& name) {
  return std::string(ABI_FIXTURE_DIR) + "/" + name + ".so";
}

std::string load_error(const std::string& file, mgw_plugin_kind kind = MGW_KIND_PROVIDER) {
  try {
    PluginLibrary::load(file, kind);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "<loaded>";
}

TEST(PluginLoader, AcceptsACompletePluginWrittenInC) {
  auto lib = PluginLibrary::load(fixture("good_provider"), MGW_KIND_PROVIDER);
  EXPECT_EQ(lib->name(), "good");
  EXPECT_STREQ(lib->descriptor().version, "1.2.3");
  EXPECT_EQ(lib->descriptor().abi_major, MGW_ABI_MAJOR);
  modelgw::config::ProviderConfig pc;
  pc.name = "good";
  pc.plugin_config = {{"api_key", "x"}};
  modelgw::plugins::Provider provider(lib, pc);
  EXPECT_NE(provider.handle(), nullptr);
}

TEST(PluginLoader, RefusesAnotherMajorVersionNamingFileAndBothVersions) {
  const std::string msg = load_error(fixture("major_two"));
  EXPECT_NE(msg.find(fixture("major_two")), std::string::npos) << msg;
  EXPECT_NE(msg.find("ABI 2.7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ABI " + std::to_string(MGW_ABI_MAJOR) + "." + std::to_string(MGW_ABI_MINOR)),
            std::string::npos)
      << msg;
}

TEST(PluginLoader, RefusesAFileWithoutTheEntrySymbol) {
  const std::string msg = load_error(fixture("no_entry"));
  EXPECT_NE(msg.find(fixture("no_entry")), std::string::npos) << msg;
  EXPECT_NE(msg.find("modelgw_plugin_entry"), std::string::npos) << msg;
}

TEST(PluginLoader, ReportsAPluginThatDeclinesTheHost) {
  const std::string msg = load_error(fixture("refuses"));
  EXPECT_NE(msg.find("refused"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fixture("refuses")), std::string::npos) << msg;
}

TEST(PluginLoader, RefusesAPluginOfAnotherKind) {
  const std::string msg = load_error(fixture("wrong_kind"));
  EXPECT_NE(msg.find("is a storage plugin"), std::string::npos) << msg;
  EXPECT_NE(msg.find("provider"), std::string::npos) << msg;
}

TEST(PluginLoader, RefusesAHookTableWithAMissingHook) {
  EXPECT_NE(load_error(fixture("missing_hook")).find("required hook unset"), std::string::npos);
}

TEST(PluginLoader, RefusesAHookTableSmallerThanTheAbi) {
  EXPECT_NE(load_error(fixture("small_table")).find("smaller than ABI 1.0"), std::string::npos);
}

TEST(PluginLoader, AStoragePluginBuiltBeforeAbi12StillLoadsAndMetersNothing) {
  auto library = PluginLibrary::load(fixture("storage_v1_1"), MGW_KIND_STORAGE);
  modelgw::plugins::Storage storage(library, nlohmann::json::object());
  EXPECT_FALSE(storage.supports_spend_control());
  EXPECT_FALSE(storage.supports_idempotency()) << "the 1.3 hooks lie past its table";
  EXPECT_THROW(storage.claim_idempotency(modelgw::plugins::IdempotencyRow{}, 1),
               modelgw::plugins::StorageError);
  try {
    storage.usage_page(modelgw::plugins::UsageFilter{});
    FAIL() << "a hook past the plugin's table must not be called";
  } catch (const modelgw::plugins::StorageError& e) {
    EXPECT_EQ(e.status(), MGW_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("too old"), std::string::npos) << e.what();
  }
  EXPECT_THROW(storage.take_lease(modelgw::plugins::LeaseRequest{}), modelgw::plugins::StorageError);
  EXPECT_TRUE(storage.list_tenants().empty()) << "the 1.1 hooks still work";
}

TEST(PluginLoader, ReportsAMissingFile) {
  const std::string msg = load_error(fixture("does_not_exist"));
  EXPECT_NE(msg.find("file not found"), std::string::npos) << msg;
}

TEST(PluginLoader, ReportsANonLibraryFile) {
  const std::string path = std::string(ABI_FIXTURE_DIR) + "/not_a_library.so";
  std::ofstream(path) << "this is text, not ELF";
  EXPECT_NE(load_error(path).find("cannot be loaded"), std::string::npos);
  std::remove(path.c_str());
}

TEST(PluginLoader, FailingInitCarriesThePluginsReason) {
  auto lib = PluginLibrary::load(fixture("failing_init"), MGW_KIND_PROVIDER);
  modelgw::config::ProviderConfig pc;
  pc.name = "acme";
  try {
    modelgw::plugins::Provider provider(lib, pc);
    FAIL() << "provider creation should fail";
  } catch (const PluginError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("provider 'acme' failed to start: api_key is required"), std::string::npos) << msg;
    EXPECT_NE(msg.find(fixture("failing_init")), std::string::npos) << msg;
  }
}

TEST(PluginLoader, ResolvesNamesToFilesInTheDirectory) {
  EXPECT_EQ(modelgw::plugins::resolve_plugin_path("/p", MGW_KIND_PROVIDER, "openai").string(),
            "/p/mgw_provider_openai.so");
  EXPECT_EQ(modelgw::plugins::resolve_plugin_path("/p", MGW_KIND_STORAGE, "/opt/x.so").string(), "/opt/x.so");
}

// The same refusal, end to end: the gateway binary stops with one line.
TEST(PluginLoader, GatewayStopsWithOneLineOnAVersionMismatch) {
  const std::string dir = std::string(ABI_FIXTURE_DIR);
  const std::string cfg = dir + "/mismatch.yaml";
  std::ofstream(cfg) << "storage: { plugin: sqlite, options: { path: \"" << dir << "/unused.db\" } }\n"
                     << "plugins: { dir: \"" << MODELGW_PLUGIN_DIR << "\" }\n"
                     << "providers:\n  future: { plugin: \"" << fixture("major_two")
                     << "\", base_url: \"http://127.0.0.1:9/v1\" }\n"
                     << "catalog:\n  m: { provider: future, model: m }\n";
  // check-config loads every plugin before anything else, exactly as serve does.
  const std::string cmd = std::string(MODELGW_BIN) + " check-config " + cfg + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr) out += buf.data();
  const int status = pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(status), 1) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find(fixture("major_two")), std::string::npos) << out;
  EXPECT_NE(out.find("ABI 2.7"), std::string::npos) << out;
  std::remove(cfg.c_str());
}

}  // namespace
