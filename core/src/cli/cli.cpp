#include "cli/cli.h"

#include "app/gateway.h"
#include "auth/api_key.h"
#include "cli/arguments.h"
#include "config/config_loader.h"
#include "logging/logging.h"
#include "plugins/plugin_error.h"
#include "plugins/provider.h"
#include "plugins/storage.h"

#include <modelgw/plugin.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>

#ifndef MODELGW_VERSION
#define MODELGW_VERSION "0.0.0"
#endif

namespace modelgw::cli {
namespace {

constexpr const char* kUsage = R"(usage: modelgw <command> [options]

commands:
  serve                              run the gateway until SIGTERM/SIGINT
  check-config [FILE]                validate a configuration file and its plugins
  tenants create NAME                add a tenant
  tenants list                       list tenants
  keys create --tenant NAME [--scopes "chat ..."]
                                     mint an API key; it is printed once, on stdout
  keys list [--tenant NAME]          list keys (prefixes only)
  keys revoke ID                     revoke a key
  version                            print the version and plugin ABI

options:
  --config FILE    configuration file (default: $MODELGW_CONFIG, else /etc/modelgw/modelgw.yaml)
)";

const std::set<std::string> kKnownScopes = {"chat",         "prompts:read", "usage:read",
                                            "budgets:read", "audit:read",   "admin"};

std::string config_path(const Arguments& args) {
  if (auto c = args.option("config")) return *c;
  if (const char* env = std::getenv("MODELGW_CONFIG"); env != nullptr && *env != '\0') return env;
  return "/etc/modelgw/modelgw.yaml";
}

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::unique_ptr<plugins::Storage> open_storage(const config::Config& c) {
  auto lib = plugins::PluginLibrary::load(
      plugins::resolve_plugin_path(c.plugins_dir, MGW_KIND_STORAGE, c.storage.plugin), MGW_KIND_STORAGE);
  return std::make_unique<plugins::Storage>(lib, c.storage.options);
}

void check_tenant_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  }
  if (!ok) throw UsageError("tenant name '" + name + "': use 1-64 letters, digits, '-', '_' or '.'");
}

std::string check_scopes(const std::string& scopes) {
  std::string normalized;
  std::size_t i = 0;
  while (i < scopes.size()) {
    auto j = scopes.find_first_of(" ,", i);
    std::string one = scopes.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!one.empty()) {
      if (!kKnownScopes.count(one)) {
        throw UsageError("unknown scope '" + one +
                         "'; known: chat, prompts:read, usage:read, budgets:read, audit:read, admin");
      }
      normalized += (normalized.empty() ? "" : " ") + one;
    }
    if (j == std::string::npos) break;
    i = j + 1;
  }
  if (normalized.empty()) throw UsageError("--scopes names no scope");
  return normalized;
}

int cmd_serve(const Arguments& args) {
  app::block_termination_signals();  // before any thread starts, so all inherit it
  const auto cfg = config::load_file(config_path(args));
  logging::init(cfg.logging.level, /*async=*/true);
  try {
    app::Gateway gateway(cfg);
    gateway.run_until_signal();
  } catch (...) {
    logging::shutdown();
    throw;
  }
  logging::shutdown();
  return 0;
}

int cmd_check_config(const Arguments& args) {
  const std::string path = args.words.size() > 1 ? args.words[1] : config_path(args);
  const auto cfg = config::load_file(path);
  logging::init("warn", false);
  // Load every plugin and start every provider, so a wrong plugin name, an
  // ABI mismatch or a bad provider block shows here rather than at serve.
  (void)plugins::PluginLibrary::load(
      plugins::resolve_plugin_path(cfg.plugins_dir, MGW_KIND_STORAGE, cfg.storage.plugin), MGW_KIND_STORAGE);
  for (const auto& pc : cfg.providers) {
    auto lib = plugins::PluginLibrary::load(
        plugins::resolve_plugin_path(cfg.plugins_dir, MGW_KIND_PROVIDER, pc.plugin), MGW_KIND_PROVIDER);
    plugins::Provider provider(lib, pc);
  }
  for (const auto& var : cfg.unset_env_vars) std::cerr << "warning: ${" << var << "} is not set\n";
  std::cout << path << ": OK (" << cfg.providers.size() << " providers, " << cfg.catalog.size()
            << " models)\n";
  return 0;
}

int cmd_tenants(const Arguments& args) {
  const std::string sub = args.word(1, "tenants subcommand (create, list)");
  const auto cfg = config::load_file(config_path(args));
  logging::init("warn", false);
  auto storage = open_storage(cfg);
  if (sub == "create") {
    const std::string name = args.word(2, "tenant NAME");
    check_tenant_name(name);
    try {
      auto id = storage->create_tenant(name, now_ms());
      std::cout << "created tenant " << name << " (id " << id << ")\n";
    } catch (const plugins::StorageError& e) {
      if (e.status() == MGW_CONFLICT) throw UsageError("tenant '" + name + "' already exists");
      throw;
    }
    return 0;
  }
  if (sub == "list") {
    for (const auto& t : storage->list_tenants()) std::cout << t.id << "\t" << t.name << "\n";
    return 0;
  }
  throw UsageError("unknown tenants subcommand '" + sub + "' (create, list)");
}

int cmd_keys(const Arguments& args) {
  const std::string sub = args.word(1, "keys subcommand (create, list, revoke)");
  const auto cfg = config::load_file(config_path(args));
  logging::init("warn", false);
  auto storage = open_storage(cfg);
  if (sub == "create") {
    auto tenant_name = args.option("tenant");
    if (!tenant_name) throw UsageError("keys create needs --tenant NAME");
    auto tenant = storage->find_tenant(*tenant_name);
    if (!tenant) {
      throw UsageError("tenant '" + *tenant_name +
                       "' does not exist; create it with: modelgw tenants create " + *tenant_name);
    }
    plugins::ApiKeyRow row;
    const std::string key = auth::mint_api_key();
    row.tenant_id = tenant->id;
    row.key_hash = auth::hash_api_key(key);
    row.display_prefix = auth::display_prefix(key);
    row.scopes = check_scopes(args.option("scopes").value_or("chat"));
    row.created_unix_ms = now_ms();
    auto id = storage->create_api_key(row);
    std::cout << key << "\n" << std::flush;  // the only time the key is ever shown
    std::cerr << "key id " << id << " for tenant " << tenant->name << ", scopes: " << row.scopes
              << " (store it now: it cannot be shown again)\n";
    return 0;
  }
  if (sub == "list") {
    std::int64_t tenant_id = 0;
    if (auto t = args.option("tenant")) {
      auto tenant = storage->find_tenant(*t);
      if (!tenant) throw UsageError("tenant '" + *t + "' does not exist");
      tenant_id = tenant->id;
    }
    std::cout << "id\ttenant\tprefix\tscopes\tstatus\n";
    for (const auto& k : storage->list_api_keys(tenant_id)) {
      std::cout << k.id << "\t" << k.tenant_name << "\t" << k.display_prefix << "...\t" << k.scopes << "\t"
                << (k.revoked_unix_ms == 0 ? "active" : "revoked") << "\n";
    }
    return 0;
  }
  if (sub == "revoke") {
    const std::string id_text = args.word(2, "key ID");
    std::int64_t id = 0;
    try {
      std::size_t used = 0;
      id = std::stoll(id_text, &used);
      if (used != id_text.size() || id <= 0) throw std::invalid_argument(id_text);
    } catch (const std::exception&) {
      throw UsageError("key ID must be a positive number, not '" + id_text + "'");
    }
    if (!storage->revoke_api_key(id, now_ms())) throw UsageError("no key with id " + id_text);
    std::cout << "revoked key " << id << "\n";
    return 0;
  }
  throw UsageError("unknown keys subcommand '" + sub + "' (create, list, revoke)");
}

}  // namespace

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  try {
    Arguments args = Arguments::parse(argc, argv, 1);
    if (command == "serve") return cmd_serve(args);
    if (command == "check-config") return cmd_check_config(args);
    if (command == "tenants") return cmd_tenants(args);
    if (command == "keys") return cmd_keys(args);
    if (command == "version" || command == "--version") {
      std::cout << "modelgw " << MODELGW_VERSION << " (plugin ABI " << MGW_ABI_MAJOR << "." << MGW_ABI_MINOR
                << ")\n";
      return 0;
    }
    if (command == "help" || command == "--help" || command == "-h") {
      std::cout << kUsage;
      return 0;
    }
    std::cerr << "modelgw: unknown command '" << command << "'\n" << kUsage;
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "modelgw: " << e.what() << "\n";
    return 2;
  } catch (const config::ConfigError& e) {
    std::cerr << "modelgw: invalid configuration: " << e.what() << "\n";
    return 1;
  } catch (const plugins::PluginError& e) {
    std::cerr << "modelgw: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "modelgw: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace modelgw::cli
