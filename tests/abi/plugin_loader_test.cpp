// The loader's answer to each way a plugin can be wrong: one clear error that
// names the file (and, for a version mismatch, both versions), never a crash.
#include "catalog/parameter_support.h"
#include "plugins/pii_mode.h"
#include "plugins/plugin_descriptor.h"
#include "plugins/plugin_error.h"
#include "plugins/plugin_library.h"
#include "plugins/provider.h"
#include "plugins/storage.h"

#include <dlfcn.h>

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
  const std::string msg = load_error(fixture("small_table"));
  EXPECT_NE(msg.find("hook table is 16 bytes, smaller than the " +
                     std::to_string(MGW_PROVIDER_HOOKS_SIZE_1_0) + " ABI 1.0 defines"),
            std::string::npos)
      << msg;
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
  EXPECT_FALSE(storage.keeps_responses());
}

TEST(PluginLoader, AStoragePluginOfAbi15KeepsNoResponsesAndNothingPastItsTableIsCalled) {
  // Its table is exactly MGW_STORAGE_HOOKS_SIZE_1_5 bytes, with junk where
  // the 1.9 hooks would be.
  auto library = PluginLibrary::load(fixture("storage_v1_5"), MGW_KIND_STORAGE);
  modelgw::plugins::Storage storage(library, nlohmann::json::object());
  EXPECT_FALSE(storage.keeps_responses());
  try {
    storage.response_get(1, "resp_x", 1);
    FAIL() << "a hook past the plugin's table must not be called";
  } catch (const modelgw::plugins::StorageError& e) {
    EXPECT_EQ(e.status(), MGW_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("too old to keep responses"), std::string::npos) << e.what();
  }
  EXPECT_THROW(storage.response_put(modelgw::plugins::StoredResponse{}), modelgw::plugins::StorageError);
  EXPECT_THROW(storage.response_page(0, "", 10), modelgw::plugins::StorageError);
  void* loaded = dlopen(fixture("storage_v1_5").c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(loaded, nullptr);
  auto* past = reinterpret_cast<int (*)()>(dlsym(loaded, "fixture_past_the_table"));
  ASSERT_NE(past, nullptr);
  EXPECT_EQ(past(), 0);
  dlclose(loaded);
  EXPECT_TRUE(storage.list_tenants().empty()) << "the 1.0 hooks still work";
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

// How many handles the host gave back to a loaded fixture (its
// fixture_destroyed export); the fixture must still be loaded.
int destroyed_by_host(const std::string& file) {
  void* h = dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return -1;
  auto* count = reinterpret_cast<int (*)()>(dlsym(h, "fixture_destroyed"));
  const int n = count == nullptr ? -1 : count();
  dlclose(h);
  return n;
}

modelgw::config::ProviderConfig provider_config() {
  modelgw::config::ProviderConfig pc;
  pc.name = "edge";
  pc.plugin_config = nlohmann::json::object();
  return pc;
}

TEST(PluginLoaderEdges, ATableOfExactlyTheOneZeroSizeLoadsAndLaterHooksAreAbsent) {
  auto lib = PluginLibrary::load(fixture("provider_exact_1_0"), MGW_KIND_PROVIDER);
  EXPECT_EQ(lib->hooks<mgw_provider_hooks>().on_provider_parameters, nullptr)
      << "a hook past the plugin's struct_size must read as absent, not as the bytes that follow";
  modelgw::plugins::Provider provider(lib, provider_config());
  EXPECT_NE(provider.handle(), nullptr);
  EXPECT_FALSE(provider.parameters().has_value());
}

TEST(PluginLoaderEdges, ATableOfExactlyTheOneFourSizeLoadsAndServesChatOnly) {
  auto lib = PluginLibrary::load(fixture("provider_exact_1_4"), MGW_KIND_PROVIDER);
  EXPECT_EQ(lib->hooks<mgw_provider_hooks>().on_provider_operations, nullptr)
      << "on_provider_operations (1.10) lies past a 1.4 table and must read as absent";
  modelgw::plugins::Provider provider(lib, provider_config());
  EXPECT_NE(provider.handle(), nullptr);
  EXPECT_FALSE(provider.serves_natively(MGW_OPERATION_RESPONSES));
}

// ABI 1.10: a provider declares what it serves natively; a name the host does
// not know is ignored, not fatal.
TEST(ProviderOperations, ADeclaredOperationIsServedNativelyAndAnUnknownOneIgnored) {
  auto lib = PluginLibrary::load(fixture("provider_operations"), MGW_KIND_PROVIDER);
  modelgw::plugins::Provider provider(lib, provider_config());
  EXPECT_TRUE(provider.serves_natively(MGW_OPERATION_RESPONSES));
  EXPECT_FALSE(provider.serves_natively("telepathy"));
  EXPECT_FALSE(provider.serves_natively(MGW_OPERATION_CHAT)) << "chat is every provider's, never 'native'";

  auto plain = PluginLibrary::load(fixture("provider_exact_1_0"), MGW_KIND_PROVIDER);
  modelgw::plugins::Provider old(plain, provider_config());
  EXPECT_FALSE(old.serves_natively(MGW_OPERATION_RESPONSES));
}

TEST(PluginLoaderEdges, APluginFromANewerMinorWithLargerStructsLoads) {
  auto lib = PluginLibrary::load(fixture("provider_newer_minor"), MGW_KIND_PROVIDER);
  EXPECT_EQ(lib->descriptor().abi_minor, 99);
  modelgw::plugins::Provider provider(lib, provider_config());
  EXPECT_NE(provider.handle(), nullptr);
}

TEST(PluginLoaderEdges, RefusesADescriptorSmallerThanOneZero) {
  const std::string msg = load_error(fixture("provider_small_descriptor"));
  EXPECT_NE(msg.find("descriptor is 16 bytes, smaller than the"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fixture("provider_small_descriptor")), std::string::npos) << msg;
}

TEST(PluginLoaderEdges, RefusesANullNameVersionOrHookTable) {
  EXPECT_NE(load_error(fixture("provider_null_name")).find("lacks name or version"), std::string::npos);
  EXPECT_NE(load_error(fixture("provider_null_version")).find("lacks name or version"), std::string::npos);
  EXPECT_NE(load_error(fixture("provider_null_hooks")).find("has no hook table"), std::string::npos);
}

TEST(PluginLoaderEdges, ReadsTheMajorBeforeTrustingAnySize) {
  // A future major may lay the descriptor out anew: only its first eight
  // bytes mean the same, so a tiny struct_size must not hide the real reason.
  mgw_plugin_descriptor d{};
  d.struct_size = 8;
  d.abi_major = MGW_ABI_MAJOR + 1;
  d.abi_minor = 0;
  try {
    modelgw::plugins::check_descriptor("plugin x.so", &d, MGW_KIND_PROVIDER);
    FAIL() << "another major must be refused";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("built for plugin ABI " + std::to_string(MGW_ABI_MAJOR + 1) + ".0"),
              std::string::npos)
        << e.what();
  }
}

TEST(PluginLoaderEdges, RefusesANameThatIsNotPrintable) {
  mgw_provider_hooks hooks{};
  mgw_plugin_descriptor d{sizeof d,    MGW_ABI_MAJOR, MGW_ABI_MINOR, MGW_KIND_PROVIDER,
                          "bad\nname", "1",           &hooks};
  EXPECT_THROW(modelgw::plugins::check_descriptor("plugin x.so", &d, MGW_KIND_PROVIDER), PluginError);
}

TEST(PluginLoaderEdges, AProviderHandleLeftOnFailureIsDestroyedNotLeaked) {
  auto lib = PluginLibrary::load(fixture("provider_handle_on_failure"), MGW_KIND_PROVIDER);
  try {
    modelgw::plugins::Provider provider(lib, provider_config());
    FAIL() << "the plugin refused";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("refused on purpose"), std::string::npos) << e.what();
  }
  EXPECT_EQ(destroyed_by_host(fixture("provider_handle_on_failure")), 1);
}

TEST(PluginLoaderEdges, OkWithoutAProviderHandleIsAFailure) {
  auto lib = PluginLibrary::load(fixture("provider_ok_null_handle"), MGW_KIND_PROVIDER);
  try {
    modelgw::plugins::Provider provider(lib, provider_config());
    FAIL() << "OK with no handle must not start";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("returned OK without a provider handle"), std::string::npos)
        << e.what();
  }
}

TEST(PluginLoaderEdges, PiiModeOfExactlyTheOneZeroSizeLoads) {
  auto lib = PluginLibrary::load(fixture("pii_exact_1_0"), MGW_KIND_PII);
  modelgw::plugins::PiiMode mode(lib, "edge", nlohmann::json::object());
  modelgw::plugins::PiiMode::Scope scope(mode);
  EXPECT_NE(scope.handle(), nullptr);
}

TEST(PluginLoaderEdges, PiiHandleRules) {
  {
    auto lib = PluginLibrary::load(fixture("pii_handle_on_failure"), MGW_KIND_PII);
    EXPECT_THROW(modelgw::plugins::PiiMode(lib, "edge", nlohmann::json::object()), PluginError);
    EXPECT_EQ(destroyed_by_host(fixture("pii_handle_on_failure")), 1);
  }
  auto lib = PluginLibrary::load(fixture("pii_ok_null_handle"), MGW_KIND_PII);
  try {
    modelgw::plugins::PiiMode mode(lib, "edge", nlohmann::json::object());
    FAIL() << "OK with no handle must not start";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("returned OK without a handle"), std::string::npos) << e.what();
  }
}

TEST(PluginLoaderEdges, StorageHandleRules) {
  {
    auto lib = PluginLibrary::load(fixture("storage_handle_on_failure"), MGW_KIND_STORAGE);
    EXPECT_THROW(modelgw::plugins::Storage(lib, nlohmann::json::object()), PluginError);
    EXPECT_EQ(destroyed_by_host(fixture("storage_handle_on_failure")), 1);
  }
  auto lib = PluginLibrary::load(fixture("storage_ok_null_handle"), MGW_KIND_STORAGE);
  try {
    modelgw::plugins::Storage storage(lib, nlohmann::json::object());
    FAIL() << "OK with no handle must not open";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("returned OK without a handle"), std::string::npos) << e.what();
  }
}

// ABI 1.4: parameters as data. What a provider declares decides what a model
// admits; the catalog may narrow it, never widen it.
TEST(ProviderParameters, TheDeclarationDecidesWhatAModelAdmitsDropsAndRefuses) {
  auto lib = PluginLibrary::load(fixture("provider_parameters"), MGW_KIND_PROVIDER);
  modelgw::plugins::Provider provider(lib, provider_config());
  ASSERT_TRUE(provider.parameters());
  ASSERT_EQ(provider.parameters()->size(), 4u);

  modelgw::config::CatalogEntry entry;
  entry.alias = "m";
  entry.supports = {"temperature", "top_p", "seed", "response_format"};  // the default list, not written
  auto support = modelgw::catalog::derive_parameter_support(entry, provider);
  EXPECT_EQ(support.supports, (std::set<std::string, std::less<>>{"temperature", "top_p"}));
  EXPECT_EQ(support.plugin_drops, (std::set<std::string, std::less<>>{"seed"}));
  ASSERT_EQ(support.ranges.count("temperature"), 1u);
  EXPECT_EQ(support.ranges.at("temperature"), std::make_pair(0.0, 1.0));
  EXPECT_EQ(support.ranges.count("top_p"), 0u) << "min > max: no range of its own";

  entry.supports_listed = true;
  entry.supports = {"temperature"};
  support = modelgw::catalog::derive_parameter_support(entry, provider);
  EXPECT_EQ(support.supports, (std::set<std::string, std::less<>>{"temperature"})) << "the catalog narrows";

  entry.supports = {"temperature", "response_format"};
  try {
    modelgw::catalog::derive_parameter_support(entry, provider);
    FAIL() << "the catalog must not widen what the plugin maps";
  } catch (const modelgw::config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'response_format' is not a parameter the 'edge' plugin"),
              std::string::npos)
        << e.what();
  }
}

TEST(ProviderParameters, APluginWithoutTheHookLeavesTheCatalogsWord) {
  auto lib = PluginLibrary::load(fixture("provider_exact_1_0"), MGW_KIND_PROVIDER);
  modelgw::plugins::Provider provider(lib, provider_config());
  modelgw::config::CatalogEntry entry;
  entry.supports = {"seed", "temperature"};
  const auto support = modelgw::catalog::derive_parameter_support(entry, provider);
  EXPECT_EQ(support.supports, (std::set<std::string, std::less<>>{"seed", "temperature"}));
  EXPECT_TRUE(support.plugin_drops.empty());
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
