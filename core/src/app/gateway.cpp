#include "app/gateway.h"

#include "admin/admin_routes.h"
#include "admin/admin_service.h"
#include "api/router.h"
#include "app/config_loader.h"
#include "app/drain.h"
#include "app/reload_plan.h"
#include "app/route_builder.h"
#include "audit/audit_log.h"
#include "auth/authenticator.h"
#include "auth/jwt/factory.h"
#include "budget/admission.h"
#include "budget/ledger.h"
#include "budget/ledger_keeper.h"
#include "catalog/catalog.h"
#include "catalog/catalog_prices.h"
#include "catalog/parameter_support.h"
#include "chat/chat_endpoint.h"
#include "chat/secret_redactor.h"
#include "http/listener.h"
#include "idempotency/key_keeper.h"
#include "metrics/gateway_sources.h"
#include "net/blocking_pool.h"
#include "net/event_loops.h"
#include "pii/detector.h"
#include "pii/guard.h"
#include "plugins/pii_mode.h"
#include "plugins/plugin_descriptor.h"
#include "plugins/plugin_error.h"
#include "plugins/provider.h"
#include "plugins/storage.h"
#include "responses/response_store.h"
#include "tenants/tenant_gate.h"
#include "upstream/proxy.h"
#include "upstream/upstream_pool.h"
#include "usage/usage_writer.h"
#include "util/allocator.h"

#include <Poco/Net/RejectCertificateHandler.h>
#include <Poco/Net/SSLManager.h>

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <csignal>
#include <map>
#include <set>
#include <thread>

namespace modelgw::app {

struct Gateway::State {
  config::Config config;
  std::map<std::string, std::shared_ptr<plugins::PluginLibrary>> libraries;  // by resolved file
  std::unique_ptr<plugins::Storage> storage;
  // The configuration file as it was loaded (reload compares against it).
  nlohmann::json config_tree;
  std::unique_ptr<usage::UsageWriter> usage;
  std::unique_ptr<auth::Authenticator> authenticator;
  std::unique_ptr<prompts::PromptStore> prompts;
  std::unique_ptr<pii::Detector> pii_detector;
  std::unique_ptr<tenants::TenantGate> gate;
  std::unique_ptr<budget::StorageLeases> leases;
  std::unique_ptr<budget::Ledger> ledger;
  std::unique_ptr<budget::LedgerKeeper> keeper;
  std::unique_ptr<budget::SpendControl> spend;
  std::unique_ptr<idempotency::KeyKeeper> idempotency;
  std::unique_ptr<responses::ResponseStore> responses;  // nullptr: the storage plugin keeps no responses
  std::unique_ptr<audit::AuditLog> audit;
  std::unique_ptr<admin::AdminService> admin;
  std::unique_ptr<admin::AdminRoutes> admin_routes;
  // GET /metrics and /readyz's probe: before the loops, so calls still
  // running when the loops are destroyed can count into them.
  std::unique_ptr<modelgw::metrics::Registry> metrics;
  std::unique_ptr<api::MetricsEndpoint> metrics_endpoint;
  std::unique_ptr<console::ConsoleSite> console;  // nullptr: console.enabled is false
  std::unique_ptr<api::ReadinessProbe> readiness;
  std::unique_ptr<net::EventLoops> loops;
  std::unique_ptr<net::BlockingPool> blocking;
  std::unique_ptr<api::QueryLane> queries;  // usage, budget and audit reads: threads of their own
  // Providers, pools, catalog, PII modes and the chat endpoint: replaced
  // whole by a reload (chat/route_set.h). After the loops, so a request's
  // set outlives them; before the router, which reads it.
  RouteBuildContext route_context;
  chat::RouteHolder routes;
  std::unique_ptr<api::Router> router;
  std::unique_ptr<http::Listener> listener;
  // Set at SIGTERM/SIGINT: /readyz answers 503 while in-flight calls drain.
  std::atomic<bool> draining{false};

  std::shared_ptr<plugins::PluginLibrary> library(mgw_plugin_kind kind, const std::string& name) {
    auto path = plugins::resolve_plugin_path(config.plugins_dir, kind, name);
    auto& lib = libraries[path.string()];
    if (!lib) {
      lib = plugins::PluginLibrary::load(path, kind);
      spdlog::info("loaded {} plugin '{}' {} from {}", plugins::kind_name(kind), lib->name(),
                   lib->descriptor().version, path.string());
    } else {
      // The same file named again, for another kind: checked like a fresh load
      // (a storage plugin's hook table used as a provider's would crash).
      plugins::check_descriptor(path.string(), &lib->descriptor(), kind);
    }
    return lib;
  }
};

namespace {

std::int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string holder_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + ":" + std::to_string(::getpid());
}

pii::PolicyDefaults pii_defaults_of(const config::Config& config) {
  pii::PolicyDefaults defaults{config.pii.default_mode, pii::critical_set(config.pii.critical), {}};
  for (const auto& [mode, options] : config.pii.modes) defaults.modes.insert(mode);
  return defaults;
}

budget::RateLimits rate_defaults_of(const config::Config& config) {
  const auto& rl = config.rate_limits;
  return budget::RateLimits{rl.tenant_requests_per_minute, rl.tenant_tokens_per_minute,
                            rl.key_requests_per_minute, rl.key_tokens_per_minute};
}

// POCO's TLS client serves the identity provider's keyset fetch (auth/jwt);
// upstream calls use Asio's TLS (upstream/upstream_pool.cpp).
void init_tls_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    Poco::Net::initializeSSL();
    // Never ask anyone about a bad certificate: reject it.
    Poco::SharedPtr<Poco::Net::InvalidCertificateHandler> reject =
        new Poco::Net::RejectCertificateHandler(false);
    Poco::Net::Context::Ptr ctx = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "",
                                                         Poco::Net::Context::VERIFY_RELAXED, 9, true);
    Poco::Net::SSLManager::instance().initializeClient(nullptr, reject, ctx);
  });
}

}  // namespace

Gateway::Gateway(const config::Config& config) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.config = config;
  for (const auto& var : config.unset_env_vars) {
    spdlog::warn("configuration refers to ${{{}}}, which is not set; using an empty value", var);
  }

  const upstream::ProxyEnvironment proxy_env = upstream::ProxyEnvironment::from_process();
  s.storage = std::make_unique<plugins::Storage>(s.library(MGW_KIND_STORAGE, config.storage.plugin),
                                                 config.storage.options);

  // The journal is opened (and locked) before anything is served: records
  // an earlier run could not store are replayed first.
  s.usage = std::make_unique<usage::UsageWriter>(
      *s.storage, std::make_unique<usage::UsageJournal>(config.usage.journal_path),
      usage::WriterOptions{config.usage.flush_interval_ms, config.usage.batch_size,
                           config.usage.queue_limit});
  // JWTs beside API keys when auth.jwks_url is set; an unreachable identity
  // provider only warns here (its tokens get 503 until it answers).
  if (config.auth.jwks_url.rfind("https://", 0) == 0) init_tls_once();
  std::shared_ptr<auth::jwt::Validator> jwt = auth::jwt::make_validator(config.auth, proxy_env);
  if (jwt) {
    jwt->prefetch();
    spdlog::info("JWT bearer tokens accepted from issuer {} (keyset {})", config.auth.issuer,
                 config.auth.jwks_url);
  }
  s.authenticator = std::make_unique<auth::Authenticator>(*s.storage, config.auth.key_cache_ttl_ms, jwt);
  // Prompts and tenant settings are cached as long as keys are: the same bound
  // on how late a change made by another process (the CLI) is seen.
  s.prompts = std::make_unique<prompts::PromptStore>(*s.storage, config.auth.key_cache_ttl_ms);
  // PII: the detector's patterns compile here, once; each mode is a plugin
  // (loaded with the routes, below).
  const pii::PolicyDefaults pii_defaults = pii_defaults_of(config);
  s.pii_detector = std::make_unique<pii::Detector>();
  spdlog::info("PII policy: default mode '{}', {} mode plugin(s)", config.pii.default_mode,
               config.pii.modes.size());
  s.gate = std::make_unique<tenants::TenantGate>(*s.storage, config.auth.key_cache_ttl_ms, pii_defaults,
                                                 rate_defaults_of(config));
  std::set<std::string> aliases;
  for (const auto& [alias, entry] : config.catalog) aliases.insert(alias);
  // The audit log: admin changes, PII decisions, budget exhaustion, rejected
  // credentials and keyset outages, hash-chained per tenant in the store.
  if (s.storage->supports_audit()) {
    const auto& ac = config.audit;
    s.audit = std::make_unique<audit::AuditLog>(
        *s.storage,
        audit::AuditOptions{std::chrono::milliseconds(ac.flush_interval_ms),
                            std::chrono::milliseconds(ac.checkpoint_interval_ms), ac.queue_limit,
                            audit::load_configured_key(ac.hmac_key_file, *s.storage), ac.journal_path},
        &now_unix_ms);
  } else {
    spdlog::warn("storage '{}' has no audit hooks (plugin ABI < 1.3): no audit log is kept",
                 s.storage->plugin_name());
  }
  s.admin = std::make_unique<admin::AdminService>(
      admin::AdminDeps{*s.storage, std::move(aliases), s.prompts.get(), s.gate.get(),
                       [] {
                         using namespace std::chrono;
                         return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
                       },
                       admin::SettingsRules{pii_defaults.modes}, s.audit.get()});
  s.admin_routes = std::make_unique<admin::AdminRoutes>(*s.admin, config.server.max_body_bytes);
  const auto& sc = config.server;
  s.loops = std::make_unique<net::EventLoops>(sc.event_loops);
  s.blocking = std::make_unique<net::BlockingPool>(sc.blocking_threads);
  s.queries = std::make_unique<api::QueryLane>(sc.query_threads, sc.max_queries_per_tenant);
  tenants::TenantGate* gate = s.gate.get();
  // Spend control: leases from the store, spent in memory (budget/ledger.h).
  // A store without the ABI 1.2 hooks meters nothing and says so.
  if (s.storage->supports_spend_control()) {
    const auto& bc = config.budget;
    s.leases = std::make_unique<budget::StorageLeases>(*s.storage);
    s.ledger = std::make_unique<budget::Ledger>(
        *s.leases,
        budget::LedgerOptions{bc.lease_ttl_ms, bc.lease_idle_ms, bc.lease_slice_divisor, holder_name()},
        &now_unix_ms);
    s.keeper = std::make_unique<budget::LedgerKeeper>(
        *s.ledger,
        std::chrono::milliseconds(std::min(bc.lease_ttl_ms / 3, std::max(bc.lease_idle_ms / 2, 100))));
    s.spend = std::make_unique<budget::SpendControl>(
        *s.ledger, *s.blocking, budget::AdmissionOptions{bc.min_output_tokens}, &now_unix_ms);
  } else {
    spdlog::warn(
        "storage '{}' has no budget or usage-query hooks (plugin ABI < 1.2): budgets, credits and rate "
        "limits are not enforced",
        s.storage->plugin_name());
  }
  // Kept responses of POST /v1/responses live in the store too.
  if (s.storage->keeps_responses()) {
    s.responses = std::make_unique<responses::ResponseStore>(*s.storage, *s.blocking, config.responses);
  } else {
    spdlog::warn(
        "storage '{}' keeps no responses (plugin ABI < 1.9): POST /v1/responses with store: true or "
        "previous_response_id is refused",
        s.storage->plugin_name());
  }
  // Idempotency keys live in the store (shared by every process on it).
  if (s.storage->supports_idempotency()) {
    s.idempotency = std::make_unique<idempotency::KeyKeeper>(*s.storage, *s.blocking, config.idempotency);
  } else {
    spdlog::warn(
        "storage '{}' has no idempotency hooks (plugin ABI < 1.3): requests with an Idempotency-Key "
        "are refused",
        s.storage->plugin_name());
  }
  // Series for every catalog route exist before the first request; a reload adds its new ones.
  if (config.metrics.enabled)
    s.metrics = std::make_unique<metrics::Registry>(metrics::catalog_routes(config));
  State* state = &s;
  s.route_context = RouteBuildContext{
      [state](mgw_plugin_kind kind, const std::string& name) { return state->library(kind, name); },
      proxy_env, s.pii_detector.get(),
      [state, gate](chat::RouteSet& set, const config::Config& c) {
        chat::ChatDeps deps{
            set.catalog,
            *state->usage,
            set.redactor,
            c.server.max_body_bytes,
            c.retry,
            *state->blocking,
            state->prompts.get(),
            set.pii_guard.get(),
            [gate](const auth::Principal& p) { return gate->pii_policy_cached(p.tenant_name); },
            [gate](const auth::Principal& p) { return gate->pii_policy(p.tenant_name); },
            state->spend.get(),
            [gate](const auth::Principal& p) { return gate->spend_cached(p.tenant_name); },
            [gate](const auth::Principal& p) { return gate->spend(p.tenant_name); },
            state->idempotency.get(),
            state->audit.get()};
        deps.metrics = metrics::add_catalog(state->metrics.get(), c);  // a reload adds its new routes
        deps.max_choices = c.budget.max_choices;
        deps.default_output_tokens = c.budget.default_output_tokens;
        return deps;
      }};
  s.routes.replace(build_route_set(config, s.route_context));
  s.config_tree = read_config_tree(config.source_path);
  s.readiness = std::make_unique<api::ReadinessProbe>(api::ReadinessChecks{
      [state] { (void)state->storage->find_api_key(std::string(64, '0')); },  // an indexed miss: cheap
      jwt ? std::function<bool()>([jwt] { return jwt->keyset_available(); }) : std::function<bool()>(),
      &s.draining, s.libraries.size()});
  if (s.metrics) {
    s.metrics_endpoint = std::make_unique<api::MetricsEndpoint>(*s.metrics, config.metrics.bearer_token);
  }
  if (config.console.enabled) s.console = std::make_unique<console::ConsoleSite>(config.console.path);
  s.router = std::make_unique<api::Router>(
      api::RouterDeps{api::AuthDeps{*s.authenticator, *s.gate, *s.blocking, s.audit.get()}, s.routes,
                      *s.prompts, *s.admin_routes, *s.storage, *s.usage, s.audit.get(), s.readiness.get(),
                      s.metrics_endpoint.get(), s.queries.get(), s.responses.get(), s.console.get()});
  // Binds now, so a taken port fails start-up with one line.
  s.listener = std::make_unique<http::Listener>(*s.loops, sc, *s.router);
  if (s.metrics) {
    metrics::add_gateway_sources(*s.metrics, *s.usage, s.audit.get(), *s.listener);
    metrics::add_plugins(*s.metrics, s.libraries);
    if (s.spend) {
      const budget::SpendControl* spend = s.spend.get();
      s.metrics->add_source("modelgw_spend_settled_over_hold_total",
                            "Requests whose real cost or tokens passed what was held for them (a defect: "
                            "the log names the account).",
                            "counter", [spend] { return static_cast<double>(spend->settled_over_hold()); });
    }
  }
  spdlog::info("{} event loop(s), {} blocking thread(s), at most {} client connections", s.loops->size(),
               sc.blocking_threads, sc.max_connections);
}

Gateway::~Gateway() {
  State& s = *state_;
  if (s.listener) s.listener->abort_all();
  if (s.loops) s.loops->stop();
  // Sockets must not outlive the io_contexts of their loops: the pools' idle
  // connections close now; what requests still hold closes with their
  // coroutines when the loops are destroyed (before the pools, see State).
  if (auto routes = s.routes.current()) {
    for (auto& [name, pool] : routes->pools) pool->close_all();
  }
  s.listener.reset();
  if (s.blocking) s.blocking->stop();
  if (s.queries) s.queries->stop();
  if (s.idempotency) s.idempotency->stop();
  if (s.responses) s.responses->stop();
  if (s.audit) s.audit->stop();
  if (s.keeper) s.keeper->stop();
  if (s.usage) s.usage->stop();
}

// SIGHUP: the configuration file is read again, and the routes rebuilt from
// it and swapped in whole; requests under way finish on the set they took.
// When anything about the new file is wrong, the running configuration stays
// and one line says why.
void Gateway::reload() {
  State& s = *state_;
  const std::string path = s.config.source_path;
  spdlog::info("received SIGHUP: reloading the configuration from {}", path);
  config::Config next;
  nlohmann::json tree;
  std::vector<std::string> kept;
  std::shared_ptr<chat::RouteSet> routes;
  try {
    next = config::load_file(path);
    tree = read_config_tree(path);
    kept = keep_restart_only(s.config, s.config_tree, next, tree);
    routes = build_route_set(next, s.route_context);
  } catch (const std::exception& e) {
    spdlog::error("reload failed; the running configuration stays: {}", e.what());
    return;
  }
  for (const auto& var : next.unset_env_vars) {
    spdlog::warn("configuration refers to ${{{}}}, which is not set; using an empty value", var);
  }
  if (!kept.empty()) {
    std::string names;
    for (const auto& k : kept) names += (names.empty() ? "" : ", ") + k;
    spdlog::warn("reload: {} changed in {}, which takes a restart; the running values stay", names, path);
  }
  s.gate->set_defaults(pii_defaults_of(next), rate_defaults_of(next));
  std::set<std::string> aliases;
  for (const auto& [alias, entry] : next.catalog) aliases.insert(alias);
  s.admin->set_catalog(std::move(aliases), admin::SettingsRules{pii_defaults_of(next).modes});
  s.routes.replace(std::move(routes))->retire();
  spdlog::info(
      "reload: configuration from {} applied ({} providers, {} models); requests under way finish "
      "on the previous one",
      path, next.providers.size(), next.catalog.size());
  s.config = std::move(next);
  s.config_tree = std::move(tree);
}

std::uint16_t Gateway::port() const {
  return state_->listener->port();
}

void block_termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);  // reloads the configuration (run_until_signal)
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is an error code, not a death
}

void Gateway::run_until_signal() {
  State& s = *state_;
  s.usage->start();
  if (s.keeper) s.keeper->start();
  if (s.idempotency) s.idempotency->start();
  if (s.responses) s.responses->start();
  if (s.audit) s.audit->start();
  s.loops->start();
  s.listener->start();
  spdlog::info("modelgw listening on http://{}:{} ({} models, storage '{}', {})", s.config.server.host,
               port(), s.config.catalog.size(), s.storage->plugin_name(), util::allocator_name());

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  int sig = 0;
  for (;;) {
    sigwait(&set, &sig);
    if (sig != SIGHUP) break;
    reload();
  }
  // Draining first, then the line that says so: whoever reads the log (an
  // operator, a test) finds /readyz already answering 503.
  s.draining.store(true);
  s.listener->drain();
  spdlog::info("received {}, stopping: draining in-flight requests (at most {} ms)", signal_name(sig),
               s.config.server.shutdown_grace_ms);
  const DrainResult drained =
      drain_calls(*s.listener, set, std::chrono::milliseconds(s.config.server.shutdown_grace_ms));
  s.loops->stop();
  s.blocking->stop();
  s.queries->stop();
  // Leases go back before the last records are written: what they keep
  // covers the charges those records still carry.
  if (s.idempotency) s.idempotency->stop();
  if (s.responses) s.responses->stop();
  if (s.audit) s.audit->stop();
  if (s.keeper) s.keeper->stop();
  s.usage->stop();
  spdlog::info("stopped; {} usage records written this run ({} requests ended by the shutdown, {} cut{})",
               s.usage->written(), drained.ended, drained.closed,
               drained.hurried ? "; the drain was cut short by a second signal" : "");
}

}  // namespace modelgw::app
