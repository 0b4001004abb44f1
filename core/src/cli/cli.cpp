#include "cli/cli.h"

#include "admin/admin_service.h"
#include "app/config_loader.h"
#include "app/gateway.h"
#include "audit/audit_anchors.h"
#include "audit/audit_key.h"
#include "audit/audit_log.h"
#include "audit/audit_verify.h"
#include "capacity/capacity_warnings.h"
#include "catalog/catalog_prices.h"
#include "cli/arguments.h"
#include "cli/import_command.h"
#include "cli/pid_file.h"
#include "cli/reload_command.h"
#include "logging/logging.h"
#include "plugins/pii_mode.h"
#include "plugins/plugin_error.h"
#include "plugins/provider.h"
#include "plugins/storage.h"
#include "storage_copy/storage_copy.h"
#include "util/allocator.h"

#include <modelgw/plugin.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#ifndef MODELGW_VERSION
#define MODELGW_VERSION "0.0.0"
#endif

namespace modelgw::cli {
namespace {

constexpr const char* kUsage = R"(usage: modelgw <command> [options]

commands:
  serve                              run the gateway until SIGTERM/SIGINT (SIGHUP reloads)
  reload [--pid PID]                 check the configuration, then have the running gateway
                                     (server.pid_file, or PID) reload it
  check-config [FILE]                validate a configuration file and its plugins
  import litellm FILE [--out OUT] [--force] [--plugins-dir DIR] [--state-dir DIR]
                                     a modelgw configuration from a LiteLLM proxy config.yaml, on
                                     stdout or into OUT (an existing OUT only with --force), and a
                                     report of each setting: imported, approximated, by hand (the
                                     command to run) or unsupported (README "Switching from LiteLLM")
  tenants create NAME                add a tenant
  tenants list                       list tenants
  tenants show NAME                  a tenant and its settings, as JSON
  tenants settings NAME [--set JSON] show, or merge JSON into, a tenant's settings
  keys create --tenant NAME [--scopes "chat ..."]
                                     mint an API key; it is printed once, on stdout
  keys list [--tenant NAME]          list keys (prefixes only)
  keys revoke ID                     revoke a key
  keys rotate ID                     mint a key with the same tenant and scopes; revoke ID
  prompts list --tenant T            the tenant's prompts and their active versions
  prompts show --tenant T NAME       every version of a prompt, as JSON
  prompts add --tenant T NAME --file F.json [--activate true]
                                     add a version ({"template", "model", "parameters"});
                                     the first version of a prompt is active at once
  prompts activate --tenant T NAME VERSION
                                     make VERSION the prompt's active version
  budgets list --tenant T            the tenant's budgets and credit account, with what is spent
  budgets create --tenant T --window hour|day|month --limit USD [--feature F | --key-id N] [--name N]
                                     add a budget of the tenant, of one of its features, or of one key
  budgets set-limit ID --limit USD   change a budget's limit
  budgets delete ID                  remove a budget
  credits show --tenant T            the tenant's credit account
  credits top-up --tenant T --amount USD
                                     add to the tenant's prepaid balance (opens the account)
  storage copy --from F1 --to F2     copy everything the storage of config F1 holds into the (empty)
                                     storage of config F2, then verify it; run again to resume
  migrate                            bring the storage's schema up to date, then exit
                                     (with storage.options.migrate false, serve refuses an
                                     older schema until this has run)
  audit verify [--tenant T] [--anchor LOG] [--key FILE]
                                     check every audit chain (or T's): names the first event
                                     edited, removed, inserted, reordered, rewritten, truncated
                                     or forged; exit 1 if any. LOG: a process log whose
                                     "audit checkpoint" lines anchor the chains; FILE: the audit
                                     key (default: audit.hmac_key_file) to check every MAC
  version                            print the version and plugin ABI

options:
  --config FILE    configuration file (default: $MODELGW_CONFIG, else /etc/modelgw/modelgw.yaml)
)";

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

// The CLI loads no plugins: the PII modes a tenant may choose are the ones the
// config lists, which the gateway loads.
admin::SettingsRules pii_rules(const config::Config& config) {
  admin::SettingsRules rules;
  for (const auto& [mode, options] : config.pii.modes) rules.pii_modes.insert(mode);
  return rules;
}

// The admin operations over this configuration's storage: the same ones the
// internal HTTP surface runs, so both check and answer alike.
struct AdminSession {
  config::Config config;
  std::unique_ptr<plugins::Storage> storage;
  // Changes made here go into the audit log; it is written when the session
  // ends (AuditLog's destructor), before the command exits.
  std::unique_ptr<audit::AuditLog> audit;
  std::unique_ptr<admin::AdminService> service;
  admin::Actor actor{"cli", ""};

  explicit AdminSession(const Arguments& args) : config(config::load_file(config_path(args))) {
    logging::init("warn", false);
    storage = open_storage(config);
    if (storage->supports_audit()) {
      audit::AuditOptions options;
      options.key = audit::load_configured_key(config.audit.hmac_key_file, *storage);
      audit = std::make_unique<audit::AuditLog>(*storage, std::move(options), &now_ms);
    }
    std::set<std::string> aliases;
    for (const auto& [alias, entry] : config.catalog) aliases.insert(alias);
    service = std::make_unique<admin::AdminService>(admin::AdminDeps{
        *storage, std::move(aliases), nullptr, nullptr, &now_ms, pii_rules(config), audit.get()});
  }
};

std::int64_t positive_id(const std::string& text, const char* what) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoll(text) < 1) {
    throw UsageError(std::string(what) + " must be a positive number, not '" + text + "'");
  }
  return std::stoll(text);
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded()) throw UsageError(path + " is not valid JSON");
  return doc;
}

void print_json(const nlohmann::json& value) {
  std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

int cmd_serve(const Arguments& args) {
  app::block_termination_signals();  // before any thread starts, so all inherit it
  const auto cfg = config::load_file(config_path(args));
  logging::init(logging::options_from(cfg.logging), /*async=*/true);
  const auto limits = capacity::raise_open_file_limit();
  spdlog::info("open-file limit {}; this configuration may use about {}", limits.open_files,
               capacity::open_files_needed(cfg));
  for (const auto& line : capacity::capacity_warnings(cfg, limits)) spdlog::warn("{}", line);
  try {
    app::Gateway gateway(cfg);
    const PidFile pid_file(cfg.server.pid_file);  // once bound: a reload can reach it
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
  for (const auto& [mode, options] : cfg.pii.modes) {
    auto lib = plugins::PluginLibrary::load(plugins::resolve_plugin_path(cfg.plugins_dir, MGW_KIND_PII, mode),
                                            MGW_KIND_PII);
    plugins::PiiMode instance(lib, mode, options);
  }
  // Every concrete model must be priced (the catalog's prices or the dataset's).
  for (const auto& [alias, entry] : cfg.catalog) {
    for (const auto& pc : cfg.providers) {
      if (!entry.is_tier() && pc.name == entry.provider) (void)catalog::prices_of(entry, pc);
    }
  }
  if (!cfg.audit.hmac_key_file.empty()) (void)audit::AuditKey::load(cfg.audit.hmac_key_file);
  for (const auto& var : cfg.unset_env_vars) std::cerr << "warning: ${" << var << "} is not set\n";
  // Under systemd, ExecStartPre runs this with the unit's limits: the ones
  // the service gets.
  for (const auto& line : capacity::capacity_warnings(cfg, capacity::limits_for_serve())) {
    std::cerr << "warning: " << line << "\n";
  }
  std::cout << path << ": OK (" << cfg.providers.size() << " providers, " << cfg.catalog.size() << " models, "
            << cfg.pii.modes.size() << " PII modes)\n";
  return 0;
}

int cmd_tenants(const Arguments& args) {
  const std::string sub = args.word(1, "tenants subcommand (create, list, show, settings)");
  AdminSession session(args);
  auto& admin = *session.service;
  if (sub == "create") {
    const std::string name = args.word(2, "tenant NAME");
    auto tenant = admin.create_tenant(session.actor, name);
    std::cout << "created tenant " << name << " (id " << tenant["id"].get<std::int64_t>() << ")\n";
    return 0;
  }
  if (sub == "list") {
    const auto tenants = admin.list_tenants();  // named: a range-for over a temporary's member dangles
    for (const auto& t : tenants["data"]) {
      std::cout << t["id"].get<std::int64_t>() << "\t" << t["name"].get<std::string>() << "\n";
    }
    return 0;
  }
  if (sub == "show") {
    print_json(admin.get_tenant(args.word(2, "tenant NAME")));
    return 0;
  }
  if (sub == "settings") {
    const std::string name = args.word(2, "tenant NAME");
    if (auto patch = args.option("set")) {
      auto doc = nlohmann::json::parse(*patch, nullptr, false);
      if (doc.is_discarded())
        throw UsageError("--set takes a JSON object, e.g. --set '{\"disabled\": true}'");
      print_json(admin.update_settings(session.actor, name, doc)["settings"]);
    } else {
      print_json(admin.get_tenant(name)["settings"]);
    }
    return 0;
  }
  throw UsageError("unknown tenants subcommand '" + sub + "' (create, list, show, settings)");
}

// The stderr note after a key is minted; the key itself goes alone to stdout.
void announce_key(const nlohmann::json& key) {
  std::cout << key["key"].get<std::string>() << "\n" << std::flush;  // the only time the key is ever shown
  std::string scopes;
  for (const auto& s : key["scopes"]) scopes += (scopes.empty() ? "" : " ") + s.get<std::string>();
  std::cerr << "key id " << key["id"].get<std::int64_t>() << " for tenant "
            << key["tenant"].get<std::string>() << ", scopes: " << scopes;
  if (key.contains("replaces")) std::cerr << "; key " << key["replaces"].get<std::int64_t>() << " is revoked";
  std::cerr << " (store it now: it cannot be shown again)\n";
}

int cmd_keys(const Arguments& args) {
  const std::string sub = args.word(1, "keys subcommand (create, list, revoke, rotate)");
  AdminSession session(args);
  auto& admin = *session.service;
  if (sub == "create") {
    auto tenant = args.option("tenant");
    if (!tenant) throw UsageError("keys create needs --tenant NAME");
    try {
      announce_key(
          admin.create_key(session.actor, *tenant, nlohmann::json(args.option("scopes").value_or("chat"))));
    } catch (const admin::AdminError& e) {
      if (e.error().status == 404) {
        throw UsageError("tenant '" + *tenant + "' does not exist; create it with: modelgw tenants create " +
                         *tenant);
      }
      throw;
    }
    return 0;
  }
  if (sub == "list") {
    std::cout << "id\ttenant\tprefix\tscopes\tstatus\n";
    const auto keys = admin.list_keys(args.option("tenant").value_or(""));
    for (const auto& k : keys["data"]) {
      std::string scopes;
      for (const auto& s : k["scopes"]) scopes += (scopes.empty() ? "" : " ") + s.get<std::string>();
      std::cout << k["id"].get<std::int64_t>() << "\t" << k["tenant"].get<std::string>() << "\t"
                << k["prefix"].get<std::string>() << "...\t" << scopes << "\t"
                << (k["revoked_at"].is_null() ? "active" : "revoked") << "\n";
    }
    return 0;
  }
  if (sub == "revoke") {
    const auto id = positive_id(args.word(2, "key ID"), "key ID");
    admin.revoke_key(session.actor, id);
    std::cout << "revoked key " << id << "\n";
    return 0;
  }
  if (sub == "rotate") {
    announce_key(admin.rotate_key(session.actor, positive_id(args.word(2, "key ID"), "key ID")));
    return 0;
  }
  throw UsageError("unknown keys subcommand '" + sub + "' (create, list, revoke, rotate)");
}

int cmd_prompts(const Arguments& args) {
  const std::string sub = args.word(1, "prompts subcommand (list, show, add, activate)");
  AdminSession session(args);
  auto& admin = *session.service;
  auto tenant = args.option("tenant");
  if (!tenant) throw UsageError("prompts " + sub + " needs --tenant NAME");
  if (sub == "list") {
    std::cout << "name\tactive\tversions\tmodel\n";
    const auto listed = admin.list_prompts(*tenant);
    for (const auto& p : listed["data"]) {
      std::cout << p["name"].get<std::string>() << "\t" << p.value("version", std::int64_t{0}) << "\t"
                << p["versions"].get<std::int64_t>() << "\t" << p.value("model", std::string("-")) << "\n";
    }
    return 0;
  }
  if (sub == "show") {
    print_json(admin.get_prompt(*tenant, args.word(2, "prompt NAME")));
    return 0;
  }
  if (sub == "add") {
    const std::string name = args.word(2, "prompt NAME");
    auto file = args.option("file");
    if (!file)
      throw UsageError(
          "prompts add needs --file F.json ({\"template\": [...], \"model\": ..., \"parameters\": {...}})");
    auto spec = read_json_file(*file);
    if (auto activate = args.option("activate")) {
      if (spec.is_object()) spec["activate"] = *activate != "false" && *activate != "no";
    }
    auto added = admin.add_prompt_version(session.actor, *tenant, name, spec);
    std::cerr << "prompt " << name << " version " << added["version"].get<std::int64_t>()
              << (added["active"].get<bool>() ? " (active)"
                                              : " (not active; activate it with: modelgw prompts activate)")
              << "\n";
    print_json(added);
    return 0;
  }
  if (sub == "activate") {
    const std::string name = args.word(2, "prompt NAME");
    const auto version = positive_id(args.word(3, "VERSION"), "VERSION");
    admin.activate_prompt_version(session.actor, *tenant, name, version);
    std::cout << "prompt " << name << " version " << version << " is active\n";
    return 0;
  }
  throw UsageError("unknown prompts subcommand '" + sub + "' (list, show, add, activate)");
}

int cmd_budgets(const Arguments& args) {
  const std::string sub = args.word(1, "budgets subcommand (list, create, set-limit, delete)");
  AdminSession session(args);
  auto& admin = *session.service;
  if (sub == "list" || sub == "create") {
    auto tenant = args.option("tenant");
    if (!tenant) throw UsageError("budgets " + sub + " needs --tenant NAME");
    if (sub == "list") {
      print_json(admin.list_budgets(*tenant));
      return 0;
    }
    nlohmann::json spec = nlohmann::json::object();
    spec["scope"] = "tenant";
    if (auto f = args.option("feature")) {
      spec["scope"] = "feature";
      spec["feature"] = *f;
    }
    if (auto k = args.option("key-id")) {
      spec["scope"] = "key";
      spec["key_id"] = positive_id(*k, "--key-id");
    }
    if (auto w = args.option("window")) spec["window"] = *w;
    if (auto l = args.option("limit")) spec["limit"] = *l;
    if (auto n = args.option("name")) spec["name"] = *n;
    print_json(admin.create_budget(session.actor, *tenant, spec));
    return 0;
  }
  if (sub == "set-limit") {
    const auto id = positive_id(args.word(2, "budget ID"), "budget ID");
    nlohmann::json spec = nlohmann::json::object();
    if (auto l = args.option("limit")) spec["limit"] = *l;
    print_json(admin.update_budget(session.actor, id, spec));
    return 0;
  }
  if (sub == "delete") {
    const auto id = positive_id(args.word(2, "budget ID"), "budget ID");
    admin.delete_budget(session.actor, id);
    std::cout << "budget " << id << " deleted\n";
    return 0;
  }
  throw UsageError("unknown budgets subcommand '" + sub + "' (list, create, set-limit, delete)");
}

int cmd_credits(const Arguments& args) {
  const std::string sub = args.word(1, "credits subcommand (show, top-up)");
  AdminSession session(args);
  auto& admin = *session.service;
  auto tenant = args.option("tenant");
  if (!tenant) throw UsageError("credits " + sub + " needs --tenant NAME");
  if (sub == "show") {
    print_json(admin.get_credits(*tenant));
    return 0;
  }
  if (sub == "top-up") {
    nlohmann::json spec = nlohmann::json::object();
    if (auto a = args.option("amount")) spec["amount"] = *a;
    print_json(admin.top_up_credits(session.actor, *tenant, spec));
    return 0;
  }
  throw UsageError("unknown credits subcommand '" + sub + "' (show, top-up)");
}

// Opens the configured storage with "migrate": true, whatever the file says:
// the plugin applies every missing step (safe while other instances start or
// migrate: each plugin serialises its steps) and reports what it did through
// the log.
int cmd_migrate(const Arguments& args) {
  config::Config config = config::load_file(config_path(args));
  logging::init("info", false);
  if (!config.storage.options.is_object()) config.storage.options = nlohmann::json::object();
  config.storage.options["migrate"] = true;
  auto storage = open_storage(config);
  std::cout << "storage '" << storage->plugin_name() << "': schema up to date\n";
  return 0;
}

int cmd_storage(const Arguments& args) {
  const std::string sub = args.word(1, "storage subcommand (copy)");
  if (sub != "copy") throw UsageError("unknown storage subcommand '" + sub + "' (copy)");
  const auto from_path = args.option("from");
  const auto to_path = args.option("to");
  if (!from_path || !to_path)
    throw UsageError("storage copy needs --from FILE and --to FILE (two configurations)");
  logging::init("warn", false);
  const config::Config from_config = config::load_file(*from_path);
  const config::Config to_config = config::load_file(*to_path);
  auto from = open_storage(from_config);
  auto to = open_storage(to_config);
  storage_copy::CopyOptions options;
  options.progress = [](const std::string& line) { std::cout << line << "\n" << std::flush; };
  try {
    storage_copy::copy_storage(*from, *to, options);
  } catch (const storage_copy::CopyError& e) {
    std::cerr << "modelgw: storage copy: " << e.what() << "\n";
    return 1;
  }
  std::cout << "copied " << *from_path << " (" << from->plugin_name() << ") into " << *to_path << " ("
            << to->plugin_name() << ")\n";
  return 0;
}

// The anchors in the log file `path` (every other line is ignored).
audit::AnchorSet read_anchor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + path);
  auto anchors = audit::read_anchors(in);
  if (anchors.lines == 0) {
    std::cerr << "warning: " << path << " holds no \"audit checkpoint\" line: no chain is anchored\n";
  }
  if (anchors.skipped > 0) {
    std::cerr << "warning: " << anchors.skipped << " line(s) of " << path
              << " looked like checkpoints but could not be read (cut, or over 1 MiB)\n";
  }
  if (anchors.thinned) {
    std::cerr << "warning: over " << audit::kMaxAnchors << " anchors in " << path
              << ": each chain is checked against its newest only\n";
  }
  return anchors;
}

int cmd_audit(const Arguments& args) {
  const std::string sub = args.word(1, "audit subcommand (verify)");
  if (sub != "verify") throw UsageError("unknown audit subcommand '" + sub + "' (verify)");
  const config::Config config = config::load_file(config_path(args));
  logging::init("warn", false);
  auto storage = open_storage(config);
  if (!storage->supports_audit())
    throw UsageError("the '" + storage->plugin_name() + "' storage keeps no audit log");
  std::map<std::int64_t, std::string> names{{0, "(gateway)"}};
  for (const auto& t : storage->list_tenants()) names[t.id] = t.name;
  audit::VerifyOptions options;
  if (auto t = args.option("tenant")) {
    auto tenant = storage->find_tenant(*t);
    if (!tenant) throw UsageError("no tenant named '" + *t + "'");
    options.tenant_id = tenant->id;
  }
  std::optional<audit::AnchorSet> anchors;
  if (auto file = args.option("anchor")) {
    anchors = read_anchor_file(*file);
    options.anchors = &*anchors;
    std::cout << "anchors: " << anchors->size() << " chain heads from " << anchors->lines
              << " checkpoint line(s) of " << *file << "\n";
  }
  std::optional<audit::AuditKey> key;
  const std::string key_file = args.option("key").value_or(config.audit.hmac_key_file);
  if (!key_file.empty()) {
    key = audit::AuditKey::load(key_file);
    options.key = &*key;
    std::cout << "MACs: checked with the audit key in " << key_file << "\n";
  }
  int broken = 0;
  for (const auto& report : audit::verify_chains(*storage, options)) {
    const auto name = names.count(report.tenant_id) ? names[report.tenant_id] : "(deleted)";
    std::cout << "tenant " << name << " (id " << report.tenant_id << "): ";
    if (!report.fault) {
      std::cout << report.events << " events, intact\n";
      continue;
    }
    ++broken;
    std::cout << report.fault->kind << " at seq " << report.fault->seq << ": " << report.fault->detail << " ("
              << report.events << " events verified before it)\n";
  }
  std::cout << (broken == 0 ? "audit log intact\n" : "audit log has been tampered with\n");
  return broken == 0 ? 0 : 1;
}

}  // namespace

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  try {
    if (command == "import") return cmd_import(argc, argv);  // takes a flag (--force): its own parsing
    Arguments args = Arguments::parse(argc, argv, 1);
    if (command == "serve") return cmd_serve(args);
    if (command == "check-config") return cmd_check_config(args);
    if (command == "reload") return cmd_reload(args, config_path(args));
    if (command == "tenants") return cmd_tenants(args);
    if (command == "keys") return cmd_keys(args);
    if (command == "prompts") return cmd_prompts(args);
    if (command == "budgets") return cmd_budgets(args);
    if (command == "credits") return cmd_credits(args);
    if (command == "audit") return cmd_audit(args);
    if (command == "migrate") return cmd_migrate(args);
    if (command == "storage") return cmd_storage(args);
    if (command == "version" || command == "--version") {
      std::cout << "modelgw " << MODELGW_VERSION << " (plugin ABI " << MGW_ABI_MAJOR << "." << MGW_ABI_MINOR
                << ", " << util::allocator_name() << ")\n";
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
  } catch (const admin::AdminError& e) {
    // A refusal (4xx) is the caller's to fix, like a usage error; anything else is ours.
    std::cerr << "modelgw: " << e.what() << "\n";
    return e.error().status < 500 ? 2 : 1;
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
