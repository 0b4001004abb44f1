#include "app/gateway.h"

#include "admin/admin_routes.h"
#include "admin/admin_service.h"
#include "admin/tenant_gate.h"
#include "api/router.h"
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
#include "net/blocking_pool.h"
#include "net/event_loops.h"
#include "pii/detector.h"
#include "pii/guard.h"
#include "plugins/pii_mode.h"
#include "plugins/plugin_error.h"
#include "plugins/provider.h"
#include "plugins/storage.h"
#include "upstream/proxy.h"
#include "upstream/upstream_pool.h"
#include "usage/usage_writer.h"

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
  std::vector<std::unique_ptr<plugins::Provider>> providers;
  std::map<std::string, std::unique_ptr<upstream::UpstreamPool>> pools;  // by provider name
  catalog::Catalog catalog;
  chat::SecretRedactor redactor;
  std::unique_ptr<usage::UsageWriter> usage;
  std::unique_ptr<auth::Authenticator> authenticator;
  std::unique_ptr<prompts::PromptStore> prompts;
  std::unique_ptr<pii::Detector> pii_detector;
  std::map<std::string, std::unique_ptr<plugins::PiiMode>> pii_modes;  // by mode name
  std::unique_ptr<pii::Guard> pii_guard;
  std::unique_ptr<admin::TenantGate> gate;
  std::unique_ptr<budget::StorageLeases> leases;
  std::unique_ptr<budget::Ledger> ledger;
  std::unique_ptr<budget::LedgerKeeper> keeper;
  std::unique_ptr<budget::SpendControl> spend;
  std::unique_ptr<idempotency::KeyKeeper> idempotency;
  std::unique_ptr<audit::AuditLog> audit;
  std::unique_ptr<admin::AdminService> admin;
  std::unique_ptr<admin::AdminRoutes> admin_routes;
  std::unique_ptr<net::EventLoops> loops;
  std::unique_ptr<net::BlockingPool> blocking;
  std::unique_ptr<chat::ChatEndpoint> chat;
  std::unique_ptr<api::Router> router;
  std::unique_ptr<http::Listener> listener;

  std::shared_ptr<plugins::PluginLibrary> library(mgw_plugin_kind kind, const std::string& name) {
    auto path = plugins::resolve_plugin_path(config.plugins_dir, kind, name);
    auto& lib = libraries[path.string()];
    if (!lib) {
      lib = plugins::PluginLibrary::load(path, kind);
      spdlog::info("loaded {} plugin '{}' {} from {}", plugins::kind_name(kind), lib->name(),
                   lib->descriptor().version, path.string());
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
  for (const auto& pc : config.providers) {
    auto provider = std::make_unique<plugins::Provider>(s.library(MGW_KIND_PROVIDER, pc.plugin), pc);
    upstream::UpstreamUrl url;
    try {
      url = upstream::parse_upstream_url(pc.base_url);
    } catch (const std::invalid_argument& e) {
      throw config::ConfigError("providers." + pc.name + ".base_url: " + e.what());
    }
    upstream::PoolSettings po;
    po.max_connections = pc.max_connections;
    po.connect_timeout_ms = pc.connect_timeout_ms;
    po.ca_file = pc.ca_file;
    po.proxy = upstream::proxy_for(url, proxy_env);
    if (po.proxy) {
      spdlog::info("provider '{}': connecting through proxy {}:{}", pc.name, po.proxy->host, po.proxy->port);
    }
    s.pools[pc.name] = std::make_unique<upstream::UpstreamPool>(url, po);
    s.redactor.add_from_config(pc.plugin_config);
    s.providers.push_back(std::move(provider));
  }
  for (const auto& [alias, entry] : config.catalog) {
    if (entry.is_tier()) continue;
    catalog::ModelRoute route;
    route.entry = entry;
    for (auto& p : s.providers) {
      if (p->name() == entry.provider) route.provider = p.get();
    }
    route.upstream = s.pools.at(entry.provider).get();
    // Built here, at start-up, so the first request does not pay for the ranks.
    route.encoding = entry.tokenizer == "estimate" ? nullptr : tokenizer::find_encoding(entry.tokenizer);
    if (route.provider != nullptr) {
      auto support = catalog::derive_parameter_support(entry, *route.provider);
      route.supports = std::move(support.supports);
      route.plugin_drops = std::move(support.plugin_drops);
      route.ranges = std::move(support.ranges);
    }
    for (const auto& pc : config.providers) {
      if (pc.name == entry.provider) route.prices = catalog::prices_of(entry, pc);
    }
    s.catalog.add(std::move(route));
  }
  for (const auto& [alias, entry] : config.catalog) {
    if (entry.is_tier()) s.catalog.add_tier(alias, entry.route);
  }
  s.catalog.seal(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());

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
  // PII: the detector's patterns compile here, once; each mode is a plugin.
  pii::PolicyDefaults pii_defaults{config.pii.default_mode, pii::critical_set(config.pii.critical), {}};
  for (const auto& [mode, options] : config.pii.modes) {
    s.pii_modes[mode] = std::make_unique<plugins::PiiMode>(s.library(MGW_KIND_PII, mode), mode, options);
    pii_defaults.modes.insert(mode);
  }
  s.pii_detector = std::make_unique<pii::Detector>();
  s.pii_guard = std::make_unique<pii::Guard>(*s.pii_detector, s.pii_modes);
  spdlog::info("PII policy: default mode '{}', {} mode plugin(s) loaded", config.pii.default_mode,
               s.pii_modes.size());
  const auto& rl = config.rate_limits;
  s.gate = std::make_unique<admin::TenantGate>(
      *s.storage, config.auth.key_cache_ttl_ms, pii_defaults,
      budget::RateLimits{rl.tenant_requests_per_minute, rl.tenant_tokens_per_minute,
                         rl.key_requests_per_minute, rl.key_tokens_per_minute});
  std::set<std::string> aliases;
  for (const auto& [alias, entry] : config.catalog) aliases.insert(alias);
  // The audit log: admin changes, PII decisions, budget exhaustion, rejected
  // credentials and keyset outages, hash-chained per tenant in the store.
  if (s.storage->supports_audit()) {
    const auto& ac = config.audit;
    s.audit = std::make_unique<audit::AuditLog>(
        *s.storage,
        audit::AuditOptions{std::chrono::milliseconds(ac.flush_interval_ms),
                            std::chrono::milliseconds(ac.checkpoint_interval_ms), ac.queue_limit},
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
  admin::TenantGate* gate = s.gate.get();
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
  // Idempotency keys live in the store (shared by every process on it).
  if (s.storage->supports_idempotency()) {
    s.idempotency = std::make_unique<idempotency::KeyKeeper>(*s.storage, *s.blocking, config.idempotency);
  } else {
    spdlog::warn(
        "storage '{}' has no idempotency hooks (plugin ABI < 1.3): requests with an Idempotency-Key "
        "are refused",
        s.storage->plugin_name());
  }
  s.chat = std::make_unique<chat::ChatEndpoint>(chat::ChatDeps{
      s.catalog, *s.usage, s.redactor, sc.max_body_bytes, config.retry, *s.blocking, s.prompts.get(),
      s.pii_guard.get(), [gate](const auth::Principal& p) { return gate->pii_policy_cached(p.tenant_name); },
      [gate](const auth::Principal& p) { return gate->pii_policy(p.tenant_name); }, s.spend.get(),
      [gate](const auth::Principal& p) { return gate->spend_cached(p.tenant_name); },
      [gate](const auth::Principal& p) { return gate->spend(p.tenant_name); }, s.idempotency.get(),
      s.audit.get()});
  s.router = std::make_unique<api::Router>(
      api::RouterDeps{api::AuthDeps{*s.authenticator, *s.gate, *s.blocking, s.audit.get()}, *s.chat,
                      s.catalog, *s.prompts, *s.admin_routes, *s.storage, *s.usage, s.audit.get()});
  // Binds now, so a taken port fails start-up with one line.
  s.listener = std::make_unique<http::Listener>(*s.loops, sc, *s.router);
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
  for (auto& [name, pool] : s.pools) pool->close_all();
  s.listener.reset();
  if (s.blocking) s.blocking->stop();
  if (s.idempotency) s.idempotency->stop();
  if (s.audit) s.audit->stop();
  if (s.keeper) s.keeper->stop();
  if (s.usage) s.usage->stop();
}

std::uint16_t Gateway::port() const {
  return state_->listener->port();
}

void block_termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is an error code, not a death
}

void Gateway::run_until_signal() {
  State& s = *state_;
  s.usage->start();
  if (s.keeper) s.keeper->start();
  if (s.idempotency) s.idempotency->start();
  if (s.audit) s.audit->start();
  s.loops->start();
  s.listener->start();
  spdlog::info("modelgw listening on http://{}:{} ({} models, storage '{}')", s.config.server.host, port(),
               s.config.catalog.size(), s.storage->plugin_name());

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  int sig = 0;
  sigwait(&set, &sig);
  spdlog::info("received {}, stopping: no new connections, draining in-flight requests",
               sig == SIGTERM ? "SIGTERM" : "SIGINT");

  // Stop accepting; idle keep-alive connections close now, busy ones after
  // their current request.
  s.listener->stop_accepting();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(s.config.server.shutdown_grace_ms);
  // Bounded by the grace period (and the 5 s after it below).
  while (s.listener->in_flight() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (s.listener->in_flight() > 0) {
    spdlog::warn("{} requests still running after server.shutdown_grace_ms; closing them",
                 s.listener->in_flight());
    s.listener->abort_all();
    // Aborted calls still write their usage records on the way out.
    const auto hard = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (s.listener->in_flight() > 0 && std::chrono::steady_clock::now() < hard) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  s.loops->stop();
  s.blocking->stop();
  // Leases go back before the last records are written: what they keep
  // covers the charges those records still carry.
  if (s.idempotency) s.idempotency->stop();
  if (s.audit) s.audit->stop();
  if (s.keeper) s.keeper->stop();
  s.usage->stop();
  spdlog::info("stopped; {} usage records written this run", s.usage->written());
}

}  // namespace modelgw::app
