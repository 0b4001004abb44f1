#include "app/config_loader.h"

#include "auth/jwt/algorithm.h"
#include "budget/money.h"
#include "catalog/parameters.h"
#include "config/section_reader.h"
#include "config/yaml_to_json.h"
#include "pii/category.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace modelgw::config {
namespace {

constexpr std::int64_t kMaxMs = 24LL * 3600 * 1000;

void parse_listen(const std::string& listen, const std::string& key, ServerConfig& out) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == listen.size()) {
    throw ConfigError(key + ": '" + listen + "' must be host:port, e.g. 127.0.0.1:8080");
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) throw ConfigError(key + ": host part is empty");
  unsigned port = 0;
  const char* begin = listen.data() + colon + 1;
  const char* end = listen.data() + listen.size();
  auto [ptr, ec] = std::from_chars(begin, end, port);
  if (ec != std::errc() || ptr != end || port > 65535) {
    throw ConfigError(key + ": port must be a number from 0 to 65535");
  }
  out.host = host;
  out.port = static_cast<std::uint16_t>(port);
}

void read_server(SectionReader r, ServerConfig& s) {
  parse_listen(r.string("listen", "127.0.0.1:8080"), r.key_path("listen"), s);
  s.max_body_bytes = static_cast<std::size_t>(r.integer("max_body_bytes", 4 << 20, 1024, 1LL << 30));
  s.max_connections = static_cast<int>(r.integer("max_connections", s.max_connections, 4, 1000000));
  s.max_detached_calls_per_tenant = static_cast<int>(
      r.integer("max_detached_calls_per_tenant", s.max_detached_calls_per_tenant, 0, 1000000));
  s.event_loops = static_cast<int>(r.integer("event_loops", 0, 0, 256));
  s.blocking_threads = static_cast<int>(r.integer("blocking_threads", 8, 1, 256));
  s.query_threads = static_cast<int>(r.integer("query_threads", 2, 1, 256));
  s.max_queries_per_tenant = static_cast<int>(r.integer("max_queries_per_tenant", 2, 1, 1000));
  s.max_header_bytes = static_cast<std::size_t>(r.integer("max_header_bytes", 32 * 1024, 1024, 1 << 20));
  s.header_timeout_ms = static_cast<int>(r.integer("header_timeout_ms", 10000, 100, kMaxMs));
  s.body_timeout_ms = static_cast<int>(r.integer("body_timeout_ms", 60000, 100, kMaxMs));
  s.send_timeout_ms = static_cast<int>(r.integer("send_timeout_ms", 60000, 100, kMaxMs));
  s.keep_alive_timeout_ms = static_cast<int>(r.integer("keep_alive_timeout_ms", 15000, 100, kMaxMs));
  s.keep_alive_scarce_ms = static_cast<int>(r.integer("keep_alive_scarce_ms", 1000, 10, kMaxMs));
  s.shutdown_grace_ms = static_cast<int>(r.integer("shutdown_grace_ms", 30000, 0, kMaxMs));
  s.pid_file = r.string("pid_file", "");
  r.reject_unknown_keys();
}

void read_storage(SectionReader r, StorageConfig& s) {
  s.plugin = r.string("plugin", "sqlite");
  const auto& opts = r.object("options");
  s.options = opts.is_null() ? nlohmann::json::object() : opts;
  r.reject_unknown_keys();
}

// usage.journal_path when the file names none: never relative to the working
// directory (two instances started from one folder would share it). Beside
// a file store, else in the state directory (systemd's $STATE_DIRECTORY, then
// $XDG_STATE_HOME/modelgw, then ~/.local/state/modelgw); the port in the
// name keeps two instances on one store or one machine apart.
std::string default_journal_path(const StorageConfig& storage, std::uint16_t port) {
  const std::string name = "usage-" + std::to_string(port) + ".journal";
  const auto path = storage.options.find("path");
  if (storage.plugin == "sqlite" && path != storage.options.end() && path->is_string() &&
      !path->get_ref<const std::string&>().empty()) {
    const std::filesystem::path store(path->get_ref<const std::string&>());
    return (store.parent_path() / (store.filename().string() + "." + name)).string();
  }
  const auto env = [](const char* var) -> std::string {
    const char* v = std::getenv(var);  // NOLINT(concurrency-mt-unsafe): read at start-up, before threads
    return v != nullptr ? v : "";
  };
  std::string dir = env("STATE_DIRECTORY");
  if (const auto colon = dir.find(':'); colon != std::string::npos) dir.resize(colon);  // several: the first
  if (dir.empty() && !env("XDG_STATE_HOME").empty()) dir = env("XDG_STATE_HOME") + "/modelgw";
  if (dir.empty() && !env("HOME").empty()) dir = env("HOME") + "/.local/state/modelgw";
  if (dir.empty()) dir = "/var/lib/modelgw";
  return dir + "/" + name;
}

// `client_connections`: server.max_connections, the default cap on upstream
// connections (each open stream holds one of each).
ProviderConfig read_provider(const std::string& name, const nlohmann::json& block, int client_connections) {
  SectionReader r(block, "providers." + name);
  if (block.is_null()) throw ConfigError(r.path() + ": must be a mapping");
  ProviderConfig p;
  p.name = name;
  p.plugin = r.required_string("plugin");
  p.base_url = r.required_string("base_url");
  if (p.base_url.rfind("http://", 0) != 0 && p.base_url.rfind("https://", 0) != 0) {
    throw ConfigError(r.key_path("base_url") + ": must start with http:// or https://");
  }
  p.connect_timeout_ms = static_cast<int>(r.integer("connect_timeout_ms", 5000, 1, kMaxMs));
  p.timeout_ms = static_cast<int>(r.integer("timeout_ms", 600000, 1, kMaxMs));
  p.first_byte_timeout_ms =
      static_cast<int>(r.integer("first_byte_timeout_ms", std::min(60000, p.timeout_ms), 1, kMaxMs));
  if (p.first_byte_timeout_ms > p.timeout_ms) {
    throw ConfigError(r.key_path("first_byte_timeout_ms") + ": must not exceed timeout_ms (" +
                      std::to_string(p.timeout_ms) + "), the bound of the whole call");
  }
  p.max_connections = static_cast<int>(r.integer(
      "max_connections", std::min(client_connections, kMaxUpstreamConnections), 1, kMaxUpstreamConnections));
  p.max_connections_set = block.is_object() && block.contains("max_connections");
  p.max_response_bytes =
      static_cast<std::size_t>(r.integer("max_response_bytes", 64LL << 20, 1024, 1LL << 32));
  p.max_sse_line_bytes =
      static_cast<std::size_t>(r.integer("max_sse_line_bytes", 256 * 1024, 256, 64LL << 20));
  p.max_sse_event_bytes =
      static_cast<std::size_t>(r.integer("max_sse_event_bytes", 1 << 20, 256, 64LL << 20));
  if (p.max_sse_event_bytes < p.max_sse_line_bytes) {
    throw ConfigError(r.key_path("max_sse_event_bytes") + ": must be at least max_sse_line_bytes");
  }
  p.ca_file = r.string("ca_file", "");
  p.plugin_config = block;  // everything, including keys only the plugin knows
  return p;
}

CatalogEntry read_tier(const std::string& alias, SectionReader& r) {
  CatalogEntry e;
  e.alias = alias;
  e.route = r.string_list("route", {});
  if (e.route.empty()) throw ConfigError(r.key_path("route") + ": must name at least one catalog alias");
  r.reject_unknown_keys();
  return e;
}

// prices: {input: 3.00, output: 15.00, cached_input: 0.30}: USD per million
// tokens, at most 6 decimals; cached_input defaults to input. At most $1M per
// million tokens, so no product of a price and a token count overflows.
constexpr std::int64_t kMaxPriceMicros = 1'000'000'000'000;
pricing::Prices read_prices(SectionReader r) {
  auto price = [&](const char* key, bool required) -> std::optional<std::int64_t> {
    const auto& v = r.raw(key);
    if (v.is_null()) {
      if (required)
        throw ConfigError(r.key_path(key) + ": required (USD per million tokens; 0 for a free model)");
      return std::nullopt;
    }
    auto micros = budget::parse_money(v);
    if (!micros || *micros > kMaxPriceMicros) {
      throw ConfigError(
          r.key_path(key) +
          ": must be a number of USD per million tokens from 0 to 1000000 with at most 6 decimals, "
          "e.g. 3.00");
    }
    return micros;
  };
  pricing::Prices p;
  p.input = *price("input", true);
  p.output = *price("output", true);
  p.cached_input = price("cached_input", false).value_or(p.input);
  p.cache_write = price("cache_write_input", false).value_or(p.input);
  r.reject_unknown_keys();
  return p;
}

CatalogEntry read_catalog_entry(const std::string& alias, const nlohmann::json& block) {
  SectionReader r(block, "catalog." + alias);
  if (block.is_null()) throw ConfigError(r.path() + ": must be a mapping");
  if (r.has("route")) return read_tier(alias, r);
  CatalogEntry e;
  e.alias = alias;
  e.provider = r.required_string("provider");
  e.model = r.required_string("model");
  e.context_window = r.integer("context_window", 0, 0, 100'000'000);
  e.max_output_tokens = r.integer("max_output_tokens", 0, 0, 100'000'000);
  if (e.context_window > 0 && e.max_output_tokens >= e.context_window) {
    throw ConfigError(r.key_path("max_output_tokens") + ": must be below context_window (" +
                      std::to_string(e.context_window) + ")");
  }
  e.tokenizer = r.string("tokenizer", "estimate");
  if (e.tokenizer != "o200k_base" && e.tokenizer != "cl100k_base" && e.tokenizer != "estimate") {
    throw ConfigError(r.key_path("tokenizer") + ": '" + e.tokenizer +
                      "' is not one of o200k_base, cl100k_base, estimate");
  }
  e.supports_listed = r.has("supports");
  e.supports = r.string_list("supports", catalog::default_supported_parameters());
  for (std::size_t i = 0; i < e.supports.size(); ++i) {
    if (!catalog::is_known_parameter(e.supports[i])) {
      std::string known;
      for (auto k : catalog::known_parameters()) known += (known.empty() ? "" : ", ") + std::string(k);
      throw ConfigError(r.key_path("supports") + "[" + std::to_string(i) + "]: '" + e.supports[i] +
                        "' is not a chat parameter the gateway knows (" + known + ")");
    }
  }
  e.drop_unsupported_params = r.boolean("drop_unsupported_params", false);
  e.kind = r.string("kind", "chat");
  if (e.kind != "chat" && e.kind != "embedding") {
    throw ConfigError(r.key_path("kind") + ": '" + e.kind + "' is not one of chat, embedding");
  }
  if (e.is_embedding()) {
    // Vendors' own limits are the defaults' ceiling: OpenAI embeds at most
    // 2,048 inputs per call, Gemini's batchEmbedContents 100.
    e.dimensions = r.integer("dimensions", 0, 1, 65'536);
    if (e.dimensions == 0) throw ConfigError(r.key_path("dimensions") + ": required for an embedding model");
    e.max_inputs = r.integer("max_inputs", 2048, 1, 2048);
  } else if (r.has("dimensions") || r.has("max_inputs")) {
    throw ConfigError(r.path() + ": dimensions and max_inputs are for kind: embedding");
  }
  if (r.has("prices")) e.prices = read_prices(SectionReader(r.object("prices"), r.key_path("prices")));
  r.reject_unknown_keys();
  return e;
}

// Every route entry of a tier must be a concrete alias of the catalog.
// A tier takes its kind from its models, which must share it (and, for
// embeddings, the vector length: a fallback to another length would break
// every index built from the first).
void check_tiers(std::map<std::string, CatalogEntry>& catalog) {
  for (auto& [alias, e] : catalog) {
    for (std::size_t i = 0; i < e.route.size(); ++i) {
      const std::string key = "catalog." + alias + ".route[" + std::to_string(i) + "]";
      auto it = catalog.find(e.route[i]);
      if (it == catalog.end()) throw ConfigError(key + ": '" + e.route[i] + "' is not a catalog alias");
      const CatalogEntry& model = it->second;
      if (model.is_tier()) {
        throw ConfigError(key + ": '" + e.route[i] + "' is itself a tier; a route names concrete aliases");
      }
      if (i == 0) {
        e.kind = model.kind;
        e.dimensions = model.dimensions;
        e.max_inputs = model.max_inputs;
      } else if (model.kind != e.kind || model.dimensions != e.dimensions) {
        throw ConfigError(
            key + ": '" + e.route[i] + "' is a " + model.kind + " model" +
            (model.is_embedding() ? " of " + std::to_string(model.dimensions) + " dimensions" : "") +
            "; every model of a tier must be of the same kind (and length of vector) as the first");
      }
    }
  }
}

void read_retry(SectionReader r, RetryConfig& out) {
  out.max_attempts = static_cast<int>(r.integer("max_attempts", 5, 1, 5));
  out.base_ms = static_cast<int>(r.integer("base_ms", 1000, 1, kMaxMs));
  out.max_wait_ms = static_cast<int>(r.integer("max_wait_ms", 60000, 1, kMaxMs));
  out.budget_ms = static_cast<int>(r.integer("budget_ms", 30000, 0, kMaxMs));
  r.reject_unknown_keys();
}

// auth.algorithms: JWS names the gateway verifies. `none` and HMAC are refused
// by name, so a copied IdP example cannot quietly weaken the check.
std::vector<std::string> read_algorithms(SectionReader& r, const AuthConfig& defaults) {
  const std::string key = r.key_path("algorithms");
  auto names = r.string_list("algorithms", defaults.algorithms);
  if (names.empty()) throw ConfigError(key + ": must name at least one algorithm");
  std::string supported;
  for (const auto& n : auth::jwt::supported_algorithm_names())
    supported += (supported.empty() ? "" : ", ") + n;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string at = key + "[" + std::to_string(i) + "]: '" + names[i] + "' ";
    const bool hmac = !names[i].empty() && (names[i][0] == 'H' || names[i][0] == 'h');
    if (auth::jwt::is_forbidden_algorithm(names[i]) && !hmac) {
      throw ConfigError(at + "is refused: an unsigned token proves nothing");
    }
    if (auth::jwt::is_forbidden_algorithm(names[i])) {
      throw ConfigError(at +
                        "is refused: HMAC needs a secret shared with the identity provider; the gateway "
                        "verifies with the provider's public keys only (" +
                        supported + ")");
    }
    if (!auth::jwt::find_algorithm(names[i])) {
      throw ConfigError(at + "is not a supported algorithm (" + supported + ")");
    }
  }
  return names;
}

void read_auth(SectionReader r, AuthConfig& a) {
  const AuthConfig defaults;
  a.key_cache_ttl_ms = static_cast<int>(r.integer("key_cache_ttl_ms", 5000, 0, kMaxMs));
  a.jwks_url = r.string("jwks_url", "");
  if (!a.jwks_url.empty()) {
    try {
      const Poco::URI uri(a.jwks_url);
      if ((uri.getScheme() != "http" && uri.getScheme() != "https") || uri.getHost().empty()) {
        throw ConfigError(r.key_path("jwks_url") + ": must be an http:// or https:// URL with a host");
      }
    } catch (const Poco::Exception& e) {
      throw ConfigError(r.key_path("jwks_url") + ": not a valid URL: " + e.message());
    }
  }
  a.issuer = r.string("issuer", "");
  a.audience = r.string("audience", "");
  if (!a.jwks_url.empty()) {
    if (a.issuer.empty()) throw ConfigError(r.key_path("issuer") + ": required when auth.jwks_url is set");
    if (a.audience.empty())
      throw ConfigError(r.key_path("audience") + ": required when auth.jwks_url is set");
  }
  a.tenant_claim = r.string("tenant_claim", defaults.tenant_claim);
  if (a.tenant_claim.empty()) throw ConfigError(r.key_path("tenant_claim") + ": must not be empty");
  a.scope_claim = r.string("scope_claim", defaults.scope_claim);
  if (a.scope_claim.empty()) throw ConfigError(r.key_path("scope_claim") + ": must not be empty");
  a.leeway_s = static_cast<int>(r.integer("leeway_s", defaults.leeway_s, 0, 600));
  a.algorithms = read_algorithms(r, defaults);
  a.jwks_timeout_ms = static_cast<int>(r.integer("jwks_timeout_ms", defaults.jwks_timeout_ms, 1, 600000));
  a.jwks_default_ttl_ms =
      static_cast<int>(r.integer("jwks_default_ttl_ms", defaults.jwks_default_ttl_ms, 0, kMaxMs));
  a.jwks_max_ttl_ms = static_cast<int>(r.integer("jwks_max_ttl_ms", defaults.jwks_max_ttl_ms, 0, kMaxMs));
  if (a.jwks_default_ttl_ms > a.jwks_max_ttl_ms) {
    throw ConfigError(r.key_path("jwks_default_ttl_ms") + ": must not exceed auth.jwks_max_ttl_ms (" +
                      std::to_string(a.jwks_max_ttl_ms) + ")");
  }
  a.jwks_refresh_min_interval_ms = static_cast<int>(
      r.integer("jwks_refresh_min_interval_ms", defaults.jwks_refresh_min_interval_ms, 0, kMaxMs));
  a.jwks_ca_file = r.string("jwks_ca_file", "");
  a.max_token_bytes = static_cast<std::size_t>(
      r.integer("max_token_bytes", static_cast<std::int64_t>(defaults.max_token_bytes), 512, 1 << 20));
  r.reject_unknown_keys();
}

void read_pii(SectionReader r, PiiConfig& p) {
  const auto& modes = r.object("modes");
  if (modes.is_null()) {
    for (const char* m : {"block", "mask", "flag"}) p.modes[m] = nlohmann::json::object();
  } else {
    for (const auto& [name, options] : modes.items()) {
      const std::string path = r.key_path("modes." + name);
      if (name == "off" || name.empty() ||
          name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
        throw ConfigError(path + ": a mode name is lower-case letters, digits and '_', and not 'off'");
      }
      if (!options.is_null() && !options.is_object()) {
        throw ConfigError(path + ": must be a mapping of the mode plugin's options (or empty)");
      }
      p.modes[name] = options.is_null() ? nlohmann::json::object() : options;
    }
  }
  p.default_mode = r.string("default_mode", p.default_mode);
  if (p.default_mode != "off" && !p.modes.count(p.default_mode)) {
    throw ConfigError(r.key_path("default_mode") + ": '" + p.default_mode +
                      "' is neither 'off' nor a mode listed under pii.modes");
  }
  p.critical = r.string_list("critical", p.critical);
  for (const auto& c : p.critical) {
    if (!pii::category_from_name(c)) {
      throw ConfigError(r.key_path("critical") + ": unknown category '" + c +
                        "' (known: " + pii::category_names() + ")");
    }
  }
  r.reject_unknown_keys();
}

// console.path: a plain absolute path that no API route lives under, so the
// console can never shadow one (or be shadowed).
void check_console_path(const std::string& path) {
  const bool plain = path.size() >= 2 && path.size() <= 64 && path[0] == '/' && path.back() != '/' &&
                     path.find("//") == std::string::npos &&
                     path.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_/") == std::string::npos;
  if (!plain) {
    throw ConfigError(
        "console.path: must be an absolute path of 2 to 64 characters a-z 0-9 - _ /, "
        "not ending in '/' (e.g. /console)");
  }
  for (const char* taken : {"/v1", "/internal", "/healthz", "/readyz", "/metrics"}) {
    const std::string_view t(taken);
    const bool under =
        path.compare(0, t.size(), t) == 0 && (path.size() == t.size() || path[t.size()] == '/');
    if (under)
      throw ConfigError("console.path: " + path + " would hide the gateway's " + std::string(t) + " routes");
  }
}

Config from_json(const nlohmann::json& root, std::string source) {
  Config c;
  c.source_path = std::move(source);
  SectionReader top(root, "");
  read_server(SectionReader(top.object("server"), "server"), c.server);
  read_storage(SectionReader(top.object("storage"), "storage"), c.storage);
  {
    SectionReader r(top.object("plugins"), "plugins");
    c.plugins_dir = r.string("dir", "./build/plugins");
    r.reject_unknown_keys();
  }
  read_auth(SectionReader(top.object("auth"), "auth"), c.auth);
  {
    SectionReader r(top.object("usage"), "usage");
    c.usage.flush_interval_ms = static_cast<int>(r.integer("flush_interval_ms", 20, 1, 60000));
    c.usage.batch_size = static_cast<std::size_t>(r.integer("batch_size", 256, 1, 100000));
    c.usage.queue_limit = static_cast<std::size_t>(r.integer("queue_limit", 100000, 1, 100'000'000));
    if (r.has("journal_path")) {
      c.usage.journal_path = r.string("journal_path", "");
      if (c.usage.journal_path.empty()) throw ConfigError("usage.journal_path: must not be empty");
    } else {
      c.usage.journal_path = default_journal_path(c.storage, c.server.port);
    }
    r.reject_unknown_keys();
  }
  {
    SectionReader r(top.object("idempotency"), "idempotency");
    auto& i = c.idempotency;
    i.ttl_ms = r.integer("ttl_ms", i.ttl_ms, 1000, 30LL * 24 * 3'600'000);
    i.max_response_bytes = static_cast<std::size_t>(
        r.integer("max_response_bytes", static_cast<std::int64_t>(i.max_response_bytes), 1024, 256LL << 20));
    i.wait_ms = r.integer("wait_ms", i.wait_ms, 100, 3'600'000);
    i.in_flight_ms = r.integer("in_flight_ms", i.in_flight_ms, 1000, 24LL * 3'600'000);
    i.purge_interval_ms = r.integer("purge_interval_ms", i.purge_interval_ms, 100, 24LL * 3'600'000);
    r.reject_unknown_keys();
  }
  {
    SectionReader r(top.object("responses"), "responses");
    auto& rs = c.responses;
    rs.retention_ms =
        r.integer("retention_days", rs.retention_ms / (24LL * 3'600'000), 1, 3650) * 24LL * 3'600'000;
    rs.purge_interval_ms = r.integer("purge_interval_ms", rs.purge_interval_ms, 100, 24LL * 3'600'000);
    rs.max_turns = static_cast<int>(r.integer("max_turns", rs.max_turns, 1, 10000));
    r.reject_unknown_keys();
  }
  {
    SectionReader r(top.object("audit"), "audit");
    auto& a = c.audit;
    a.flush_interval_ms = static_cast<int>(r.integer("flush_interval_ms", a.flush_interval_ms, 1, 60000));
    a.checkpoint_interval_ms =
        static_cast<int>(r.integer("checkpoint_interval_ms", a.checkpoint_interval_ms, 100, 24 * 3'600'000));
    a.queue_limit = static_cast<std::size_t>(
        r.integer("queue_limit", static_cast<std::int64_t>(a.queue_limit), 1, 100'000'000));
    a.hmac_key_file = r.string("hmac_key_file", "");
    if (r.has("journal_path")) {
      a.journal_path = r.string("journal_path", "");
    } else {
      std::string usage = c.usage.journal_path;
      constexpr std::string_view kSuffix = ".journal";
      if (usage.size() > kSuffix.size() && usage.ends_with(kSuffix))
        usage.resize(usage.size() - kSuffix.size());
      a.journal_path = usage + ".audit.journal";
    }
    r.reject_unknown_keys();
  }
  {
    SectionReader r(top.object("metrics"), "metrics");
    c.metrics.enabled = r.boolean("enabled", c.metrics.enabled);
    c.metrics.bearer_token = r.string("bearer_token", "");
    r.reject_unknown_keys();
  }
  {
    SectionReader r(top.object("console"), "console");
    c.console.enabled = r.boolean("enabled", c.console.enabled);
    c.console.path = r.string("path", c.console.path);
    check_console_path(c.console.path);
    r.reject_unknown_keys();
  }
  {
    SectionReader r(top.object("logging"), "logging");
    c.logging.level = r.string("level", "info");
    static const std::set<std::string> levels{"trace", "debug", "info", "warn", "error", "off"};
    if (!levels.count(c.logging.level)) {
      throw ConfigError("logging.level: must be one of trace, debug, info, warn, error, off");
    }
    c.logging.format = r.string("format", c.logging.format);
    if (c.logging.format != "json" && c.logging.format != "text") {
      throw ConfigError("logging.format: must be json or text");
    }
    c.logging.access_log = r.boolean("access_log", c.logging.access_log);
    c.logging.access_log_format = r.string("access_log_format", c.logging.access_log_format);
    if (c.logging.access_log_format != "json" && c.logging.access_log_format != "combined") {
      throw ConfigError("logging.access_log_format: must be json or combined");
    }
    r.reject_unknown_keys();
  }
  read_pii(SectionReader(top.object("pii"), "pii"), c.pii);
  {
    SectionReader r(top.object("budget"), "budget");
    c.budget.lease_ttl_ms = static_cast<int>(r.integer("lease_ttl_ms", 30000, 1000, 3'600'000));
    c.budget.lease_idle_ms = static_cast<int>(r.integer("lease_idle_ms", 5000, 100, 3'600'000));
    c.budget.lease_slice_divisor = static_cast<int>(r.integer("lease_slice_divisor", 10, 1, 1000));
    c.budget.min_output_tokens = r.integer("min_output_tokens", 16, 1, 1'000'000);
    c.budget.default_output_tokens = r.integer("default_output_tokens", 4096, 1, 10'000'000);
    c.budget.max_choices = r.integer("max_choices", 8, 1, 128);  // OpenAI's own bound on n is 128
    r.reject_unknown_keys();
  }
  {
    SectionReader r(top.object("rate_limits"), "rate_limits");
    constexpr std::int64_t kMax = 1'000'000'000'000;
    c.rate_limits.tenant_requests_per_minute = r.integer("tenant_requests_per_minute", 0, 0, kMax);
    c.rate_limits.tenant_tokens_per_minute = r.integer("tenant_tokens_per_minute", 0, 0, kMax);
    c.rate_limits.key_requests_per_minute = r.integer("key_requests_per_minute", 0, 0, kMax);
    c.rate_limits.key_tokens_per_minute = r.integer("key_tokens_per_minute", 0, 0, kMax);
    r.reject_unknown_keys();
  }
  const auto& providers = top.object("providers");
  if (providers.is_null() || providers.empty())
    throw ConfigError("providers: at least one provider is required");
  for (const auto& [name, block] : providers.items())
    c.providers.push_back(read_provider(name, block, c.server.max_connections));

  const auto& catalog = top.object("catalog");
  if (catalog.is_null() || catalog.empty())
    throw ConfigError("catalog: at least one model alias is required");
  for (const auto& [alias, block] : catalog.items()) {
    if (alias == "auto") throw ConfigError("catalog.auto: 'auto' is reserved and cannot be an alias");
    CatalogEntry e = read_catalog_entry(alias, block);
    bool known = e.is_tier();
    for (const auto& p : c.providers) known = known || p.name == e.provider;
    if (!known) {
      throw ConfigError("catalog." + alias + ".provider: '" + e.provider +
                        "' is not defined under providers");
    }
    c.catalog.emplace(alias, std::move(e));
  }
  check_tiers(c.catalog);
  read_retry(SectionReader(top.object("retry"), "retry"), c.retry);
  top.reject_unknown_keys();
  return c;
}

}  // namespace

Config load_text(const std::string& yaml, const std::string& source_name) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source_name + ": not valid YAML: " + e.what());
  }
  if (!root.IsMap()) throw ConfigError(source_name + ": the top level must be a mapping");
  std::vector<std::string> unset;
  nlohmann::json json = yaml_to_json(root, "", process_env, unset);
  Config c = from_json(json, source_name);
  c.unset_env_vars = std::move(unset);
  return c;
}

Config load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the configuration file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_text(ss.str(), path);
}

}  // namespace modelgw::config
