// The gateway's configuration, as validated plain data. Loaded once at start-up
// by config_loader; nothing reads YAML after that.
#pragma once

#include <modelgw/pricing.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace modelgw::config {

// Thrown for any invalid configuration; the message starts with the key path.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ServerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  std::size_t max_body_bytes = 4 * 1024 * 1024;
  // Open client connections at most. When all are open, a new one replaces
  // an idle one or the longest still sending its head; when every one is
  // serving a request, it is answered 503 and closed. Bounded by memory (an
  // idle connection holds a few KiB, an open stream about 20 KiB) and by the
  // file descriptor limit, not by threads. Sized so the packaged service
  // holds 10,000 concurrent streams with room for probes and new requests.
  int max_connections = 16384;
  int event_loops = 0;                       // threads running the event loops; 0: one per core
  int blocking_threads = 8;                  // threads for work that blocks (storage, keyset fetches)
  int query_threads = 2;                     // threads for GET /v1/usage, /v1/budgets, /v1/audit reads
  int max_queries_per_tenant = 2;            // such reads one tenant may have running at once (429 past it)
  std::size_t max_header_bytes = 32 * 1024;  // the whole request head
  int header_timeout_ms = 10000;             // the whole request head must arrive within this
  int body_timeout_ms = 60000;               // the whole request body must arrive within this
  int send_timeout_ms = 60000;        // a client that reads nothing of an answer for this long is dropped
  int keep_alive_timeout_ms = 15000;  // idle keep-alive connections close after this...
  int keep_alive_scarce_ms = 1000;    // ...or after this once 3/4 of max_connections are open
  int shutdown_grace_ms = 30000;      // how long SIGTERM waits for in-flight requests
  // Calls that go on after their client left (an Idempotency-Key's answer,
  // kept for the retry) give their connection slot back; this bounds how
  // many one tenant may have. Past it, a call whose client leaves ends.
  int max_detached_calls_per_tenant = 256;
  // Where serve writes its process id (removed at exit), for `modelgw reload`;
  // empty: none is written.
  std::string pid_file;
};

// Upper bound of providers.*.max_connections: the ephemeral ports of one
// source address towards one upstream address and port.
inline constexpr int kMaxUpstreamConnections = 65536;

struct StorageConfig {
  std::string plugin = "sqlite";
  nlohmann::json options = nlohmann::json::object();
};

struct AuthConfig {
  int key_cache_ttl_ms = 5000;  // how long a key or JWT tenant lookup is reused; bounds revocation delay
  // JWT bearer tokens, validated against the identity provider's keyset.
  std::string jwks_url;                 // http(s) URL of the JWKS; empty: JWTs are refused, API keys only
  std::string issuer;                   // `iss` must equal this (required with jwks_url)
  std::string audience;                 // `aud` must be or contain this (required with jwks_url)
  std::string tenant_claim = "tenant";  // claim holding the tenant's name
  std::string scope_claim = "scope";    // claim holding the scopes: "a b" or ["a", "b"]
  int leeway_s = 60;                    // clock skew allowed on exp, nbf, iat
  std::vector<std::string> algorithms = {"RS256", "RS384", "RS512", "PS256",
                                         "PS384", "PS512", "ES256", "ES384"};
  int jwks_timeout_ms = 3000;                // connect, and each read of the keyset response
  int jwks_default_ttl_ms = 300000;          // keyset lifetime when the response sends no max-age
  int jwks_max_ttl_ms = 3600000;             // upper bound on the response's max-age
  int jwks_refresh_min_interval_ms = 10000;  // fetches (unknown kid, after a failure) at most this often
  std::string jwks_ca_file;                  // extra trusted CA certificates (PEM) for an https jwks_url
  std::size_t max_token_bytes = 8192;        // longer bearer tokens are refused unread
};

struct UsageConfig {
  int flush_interval_ms = 20;        // longest a served request's record waits to be written
  std::size_t batch_size = 256;      // records written in one transaction
  std::size_t queue_limit = 100000;  // records in memory; at it, chat requests get 503
  // Records storage refused, until replayed. Default (config_loader):
  // beside a SQLite store, else in the state directory; never the cwd.
  std::string journal_path;
};

// Idempotency-Key on chat (spec 8): how long a key lives, how big a response
// is kept for replay, how long a duplicate waits for the first.
struct IdempotencyConfig {
  std::int64_t ttl_ms = 24LL * 3'600'000;  // a key's lifetime once its answer is kept; then it counts as new
  std::size_t max_response_bytes = 1024 * 1024;  // larger responses are not kept (README)
  std::int64_t wait_ms = 120'000;                // a duplicate's wait for the first attempt
  std::int64_t in_flight_ms = 15LL * 60'000;     // a claim held by a process that died lapses after this
  std::int64_t purge_interval_ms = 60'000;       // expired keys are deleted this often
};

// Stored responses of POST /v1/responses (README "The Responses API"): kept
// through the storage plugin when it keeps them (ABI 1.9).
struct ResponsesConfig {
  std::int64_t retention_ms =
      30LL * 24 * 3'600'000;                // a stored response is purged this long after it was made
  std::int64_t purge_interval_ms = 60'000;  // expired responses are deleted this often
  int max_turns = 100;                      // previous_response_id reaches back at most this many turns
};

// GET /metrics (docs/METRICS.md): served unless disabled; when a bearer
// token is set, only to requests that bear it.
struct MetricsConfig {
  bool enabled = true;
  std::string bearer_token;  // a secret: never logged; empty: no authentication
};

// The web console (console/console_site.h): served unless disabled.
struct ConsoleConfig {
  bool enabled = true;
  std::string path = "/console";  // where it is served; no other route may live under it
};

// The audit log's writer (audit/audit_log.h).
struct AuditConfig {
  int flush_interval_ms = 50;          // events are appended at least this often
  int checkpoint_interval_ms = 60000;  // the chains' newest hashes are recorded this often
  std::size_t queue_limit = 100000;    // events held in memory while the store refuses them
  // Where events past queue_limit wait for the store (audit/audit_journal.h).
  // Default: beside the usage journal (its name with .audit.journal);
  // written empty: none, and the oldest events past the limit are dropped.
  std::string journal_path;
  // A file holding the audit key (audit/audit_key.h): every event gets a MAC
  // under it. A secret: read at start-up, never logged; empty: no MACs.
  std::string hmac_key_file;
};

// PII policy (issue: per-tenant block/mask/flag). A tenant's settings.pii
// overrides the mode and the critical set and adds an allow-list.
struct PiiConfig {
  std::string default_mode = "flag";  // "off" or a key of `modes`
  std::vector<std::string> critical = {"payment_card", "ssn", "iban", "secret"};
  // Mode plugins to load (mgw_pii_<name>.so), each with its options object.
  std::map<std::string, nlohmann::json> modes;
};

struct LoggingConfig {
  std::string level = "info";
  // "json" (one object per line, for journald and log shippers) or "text".
  std::string format = "json";
  bool access_log = true;                  // one line per HTTP request
  std::string access_log_format = "json";  // "json" or "combined"
};

struct ProviderConfig {
  std::string name;
  std::string plugin;
  std::string base_url;
  int connect_timeout_ms = 5000;      // TCP (and TLS) connect
  int first_byte_timeout_ms = 60000;  // the response head; and each next piece of a stream
  int timeout_ms = 600000;            // the whole call, stream included
  // Open connections to this upstream, busy or idle. Default: server.max_connections
  // (capped at kMaxUpstreamConnections), since every open stream holds one; a
  // lower cap makes streams past it wait up to connect_timeout_ms, then fail.
  int max_connections = 16384;
  bool max_connections_set = false;  // written in the file (check-config warns when it is the bottleneck)
  std::size_t max_response_bytes = 64 * 1024 * 1024;  // whole answers, and all a stream relays
  std::size_t max_sse_line_bytes = 256 * 1024;        // one line of an upstream event stream
  std::size_t max_sse_event_bytes = 1024 * 1024;      // one event of an upstream event stream
  std::string ca_file;           // extra trusted CA certificates (PEM), besides the system store
  nlohmann::json plugin_config;  // the whole block, handed to the plugin (holds secrets)
};

// How failed upstream calls are retried (spec 7.4).
struct RetryConfig {
  int max_attempts = 5;  // per route entry, the first try included
  int base_ms = 1000;    // wait = min(base * 2^attempt, max_wait) + 0..25 % jitter
  int max_wait_ms = 60000;
  int budget_ms = 30000;  // all waiting of one request together; past it, the next route entry
};

// Spend control: how this process shares budgets and rate limits with the
// others on one store (budget/ledger.h).
struct BudgetConfig {
  int lease_ttl_ms = 30000;             // a dead process's leases are freed after this
  int lease_idle_ms = 5000;             // an unused lease goes back to the store after this
  int lease_slice_divisor = 10;         // a lease asks for 1/N of the limit (or one request, if more)
  std::int64_t min_output_tokens = 16;  // a budget clamp leaving fewer output tokens refuses (402)
  // A request without max_tokens is held for (and its vendor told) at most
  // this much output when a limit applies, so one such request cannot hold a
  // whole budget; the model's max_output_tokens when that is lower.
  std::int64_t default_output_tokens = 4096;
  // The most completions (n) one chat request may ask for: each is output the
  // vendor bills, so a hold covers n times the output.
  std::int64_t max_choices = 8;
};

// Default rate limits per minute (0: none); a tenant's settings override them.
struct RateLimitConfig {
  std::int64_t tenant_requests_per_minute = 0;
  std::int64_t tenant_tokens_per_minute = 0;
  std::int64_t key_requests_per_minute = 0;
  std::int64_t key_tokens_per_minute = 0;
};

struct CatalogEntry {
  std::string alias;
  // A concrete alias names a provider and the vendor's model...
  std::string provider;
  std::string model;
  std::int64_t context_window = 0;     // tokens; 0: not checked
  std::int64_t max_output_tokens = 0;  // default output size when the client sends no max_tokens
  std::string tokenizer = "estimate";  // o200k_base, cl100k_base or estimate
  std::vector<std::string> supports;   // request parameters the model accepts
  bool supports_listed = false;        // `supports` was written (else it is the default list)
  bool drop_unsupported_params = false;
  // Per million tokens, in micro-units; nullopt: the price dataset's (start-up
  // fails when it has none).
  std::optional<pricing::Prices> prices;
  // What the model does: "chat" (every chat door) or "embedding" (POST
  // /v1/embeddings only). An embedding model has no output: `dimensions` is
  // the length of its vectors (the largest a client may ask for), and
  // `max_inputs` the most inputs its vendor embeds in one call (the gateway
  // splits a larger request and joins the answers).
  std::string kind = "chat";
  std::int64_t dimensions = 0;
  std::int64_t max_inputs = 0;
  bool is_embedding() const { return kind == "embedding"; }
  // ...a tier alias names, in order, the concrete aliases that serve it.
  std::vector<std::string> route;
  bool is_tier() const { return !route.empty(); }
};

struct Config {
  std::string source_path;
  ServerConfig server;
  StorageConfig storage;
  std::string plugins_dir = "./build/plugins";
  AuthConfig auth;
  UsageConfig usage;
  IdempotencyConfig idempotency;
  ResponsesConfig responses;
  AuditConfig audit;
  MetricsConfig metrics;
  ConsoleConfig console;
  LoggingConfig logging;
  RetryConfig retry;
  PiiConfig pii;
  BudgetConfig budget;
  RateLimitConfig rate_limits;
  std::vector<ProviderConfig> providers;
  std::map<std::string, CatalogEntry> catalog;
  std::vector<std::string> unset_env_vars;  // ${VAR}s that were empty; names only
};

}  // namespace modelgw::config
