#include "app/config_loader.h"
#include "config_refusal.h"

#include "auth/jwt/algorithm.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using modelgw::config::ConfigError;
using modelgw::config::load_text;
using modelgw::config::testing::error_of;

const std::string kMinimal = R"(
providers:
  openai: { plugin: openai, base_url: "https://api.openai.com/v1", api_key: "k", timeout_ms: 1234 }
catalog:
  gpt-4o-mini: { provider: openai, model: "gpt-4o-mini", context_window: 128000 }
)";

TEST(ConfigLoader, MinimalFileGetsDefaults) {
  auto c = load_text(kMinimal);
  EXPECT_EQ(c.server.host, "127.0.0.1");
  EXPECT_EQ(c.server.port, 8080);
  EXPECT_EQ(c.server.max_body_bytes, 4u * 1024 * 1024);
  EXPECT_EQ(c.storage.plugin, "sqlite");
  ASSERT_EQ(c.providers.size(), 1u);
  EXPECT_EQ(c.providers[0].timeout_ms, 1234);
  EXPECT_EQ(c.providers[0].plugin_config.at("api_key"), "k");
  EXPECT_EQ(c.catalog.at("gpt-4o-mini").context_window, 128000);
}

// Never relative to the working directory: beside a SQLite store, else in
// the state directory, with the port in the name.
TEST(ConfigLoader, TheUsageJournalDefaultsBesideTheStoreOrInTheStateDirectory) {
  auto beside =
      load_text(kMinimal +
                "server: { listen: \"127.0.0.1:9001\" }\nstorage: { plugin: sqlite, options: { path: "
                "\"/srv/gw/modelgw.db\" } }\n");
  EXPECT_EQ(beside.usage.journal_path, "/srv/gw/modelgw.db.usage-9001.journal");
  ::setenv("STATE_DIRECTORY", "/var/lib/modelgw-test", 1);
  auto pg = load_text(kMinimal + "storage: { plugin: postgres, options: { dsn: \"x\" } }\n");
  ::unsetenv("STATE_DIRECTORY");
  EXPECT_EQ(pg.usage.journal_path, "/var/lib/modelgw-test/usage-8080.journal");
  auto set = load_text(kMinimal + "usage: { journal_path: \"/tmp/j\" }\n");
  EXPECT_EQ(set.usage.journal_path, "/tmp/j");
  EXPECT_NE(error_of(kMinimal + "usage: { journal_path: \"\" }\n").find("usage.journal_path"),
            std::string::npos);
}

TEST(ConfigLoader, ReadsTheDocumentedShape) {
  auto c = load_text(R"(
server:   { listen: "0.0.0.0:9090", max_body_bytes: 2048 }
storage:  { plugin: sqlite, options: { path: "./var/modelgw.db" } }
plugins:  { dir: "/usr/lib/modelgw/plugins" }
)" + kMinimal);
  EXPECT_EQ(c.server.host, "0.0.0.0");
  EXPECT_EQ(c.server.port, 9090);
  EXPECT_EQ(c.server.max_body_bytes, 2048u);
  EXPECT_EQ(c.storage.options.at("path"), "./var/modelgw.db");
  EXPECT_EQ(c.plugins_dir, "/usr/lib/modelgw/plugins");
}

TEST(ConfigLoader, SubstitutesEnvironmentVariables) {
  ::setenv("MGW_TEST_KEY", "sk-from-env", 1);
  ::unsetenv("MGW_TEST_UNSET");
  auto c = load_text(R"(
providers:
  openai: { plugin: openai, base_url: "https://x/v1", api_key: "${MGW_TEST_KEY}", org: "${MGW_TEST_UNSET}" }
catalog:
  m: { provider: openai, model: "${MGW_TEST_UNSET:-fallback}" }
)");
  EXPECT_EQ(c.providers[0].plugin_config.at("api_key"), "sk-from-env");
  EXPECT_EQ(c.providers[0].plugin_config.at("org"), "");
  EXPECT_EQ(c.catalog.at("m").model, "fallback");
  ASSERT_EQ(c.unset_env_vars.size(), 1u);
  EXPECT_EQ(c.unset_env_vars[0], "MGW_TEST_UNSET");
}

TEST(ConfigLoader, ErrorsNameTheKeyPath) {
  EXPECT_NE(error_of("server: { max_body_bytes: big }\n" + kMinimal).find("server.max_body_bytes"),
            std::string::npos);
  EXPECT_NE(error_of("server: { max_body_bytes: 1 }\n" + kMinimal).find("out of range"), std::string::npos);
  EXPECT_NE(error_of("server: { listen: \"localhost\" }\n" + kMinimal).find("server.listen"),
            std::string::npos);
  EXPECT_NE(error_of("server: { lisen: \"x:1\" }\n" + kMinimal).find("server.lisen: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("bogus: 1\n" + kMinimal).find("bogus: unknown key"), std::string::npos);
  EXPECT_NE(error_of("logging: { level: loud }\n" + kMinimal).find("logging.level"), std::string::npos);
}

TEST(ConfigLoader, ProvidersAndCatalogAreChecked) {
  EXPECT_NE(error_of("catalog: { m: { provider: p, model: m } }").find("providers"), std::string::npos);
  EXPECT_NE(
      error_of("providers: { p: { plugin: openai, base_url: \"ftp://x\" } }\ncatalog: { m: { provider: p, "
               "model: m } }")
          .find("providers.p.base_url"),
      std::string::npos);
  EXPECT_NE(
      error_of("providers: { p: { base_url: \"http://x\" } }\ncatalog: { m: { provider: p, model: m } }")
          .find("providers.p.plugin: required"),
      std::string::npos);
  EXPECT_NE(error_of("providers: { p: { plugin: o, base_url: \"http://x\" } }\ncatalog: { m: { provider: q, "
                     "model: m } }")
                .find("catalog.m.provider: 'q' is not defined"),
            std::string::npos);
  EXPECT_NE(
      error_of("providers: { p: { plugin: o, base_url: \"http://x\" } }\ncatalog: { auto: { provider: p, "
               "model: m } }")
          .find("reserved"),
      std::string::npos);
  EXPECT_NE(error_of("providers: { p: { plugin: o, base_url: \"http://x\" } }\ncatalog: { m: { provider: p, "
                     "model: m, window: 3 } }")
                .find("catalog.m.window: unknown key"),
            std::string::npos);
}

TEST(ConfigLoader, RejectsBrokenYamlAndMissingFiles) {
  EXPECT_NE(error_of("server: [unclosed").find("not valid YAML"), std::string::npos);
  EXPECT_NE(error_of("- a\n- b\n").find("top level must be a mapping"), std::string::npos);
  EXPECT_THROW(modelgw::config::load_file("/nonexistent/modelgw.yaml"), ConfigError);
}

TEST(ConfigLoader, QuotedScalarsStayStrings) {
  auto c = load_text(R"(
providers:
  p: { plugin: o, base_url: "http://x", api_key: "12345", flag: true, n: 3 }
catalog:
  m: { provider: p, model: m }
)");
  const auto& pc = c.providers[0].plugin_config;
  EXPECT_TRUE(pc.at("api_key").is_string());
  EXPECT_TRUE(pc.at("flag").is_boolean());
  EXPECT_TRUE(pc.at("n").is_number_integer());
}

TEST(ConfigLoader, AuthJwtDefaults) {
  auto c = load_text(kMinimal);
  EXPECT_EQ(c.auth.key_cache_ttl_ms, 5000);
  EXPECT_EQ(c.auth.jwks_url, "");
  EXPECT_EQ(c.auth.tenant_claim, "tenant");
  EXPECT_EQ(c.auth.scope_claim, "scope");
  EXPECT_EQ(c.auth.leeway_s, 60);
  EXPECT_EQ(c.auth.algorithms, modelgw::auth::jwt::supported_algorithm_names());
  EXPECT_EQ(c.auth.jwks_timeout_ms, 3000);
  EXPECT_EQ(c.auth.jwks_default_ttl_ms, 300000);
  EXPECT_EQ(c.auth.jwks_max_ttl_ms, 3600000);
  EXPECT_EQ(c.auth.jwks_refresh_min_interval_ms, 10000);
  EXPECT_EQ(c.auth.jwks_ca_file, "");
  EXPECT_EQ(c.auth.max_token_bytes, 8192u);
}

TEST(ConfigLoader, ReadsEveryAuthKey) {
  auto c = load_text(R"(
auth:
  key_cache_ttl_ms: 100
  jwks_url: "https://idp.example/.well-known/jwks.json"
  issuer: "https://idp.example/"
  audience: modelgw
  tenant_claim: "https://modelgw/tenant"
  scope_claim: scp
  leeway_s: 0
  algorithms: [ES256, PS256]
  jwks_timeout_ms: 500
  jwks_default_ttl_ms: 1000
  jwks_max_ttl_ms: 2000
  jwks_refresh_min_interval_ms: 0
  jwks_ca_file: "/etc/ssl/idp.pem"
  max_token_bytes: 16384
)" + kMinimal);
  const auto& a = c.auth;
  EXPECT_EQ(a.key_cache_ttl_ms, 100);
  EXPECT_EQ(a.jwks_url, "https://idp.example/.well-known/jwks.json");
  EXPECT_EQ(a.issuer, "https://idp.example/");
  EXPECT_EQ(a.audience, "modelgw");
  EXPECT_EQ(a.tenant_claim, "https://modelgw/tenant");
  EXPECT_EQ(a.scope_claim, "scp");
  EXPECT_EQ(a.leeway_s, 0);
  EXPECT_EQ(a.algorithms, (std::vector<std::string>{"ES256", "PS256"}));
  EXPECT_EQ(a.jwks_timeout_ms, 500);
  EXPECT_EQ(a.jwks_default_ttl_ms, 1000);
  EXPECT_EQ(a.jwks_max_ttl_ms, 2000);
  EXPECT_EQ(a.jwks_refresh_min_interval_ms, 0);
  EXPECT_EQ(a.jwks_ca_file, "/etc/ssl/idp.pem");
  EXPECT_EQ(a.max_token_bytes, 16384u);
}

TEST(ConfigLoader, AuthJwtErrorsNameTheKey) {
  const std::string jwks = "auth: { jwks_url: \"https://idp/jwks\", issuer: i, audience: a, ";
  auto err = [&](const std::string& more) { return error_of(jwks + more + " }\n" + kMinimal); };
  EXPECT_EQ(err("x: 1").find("auth.x: unknown key"), 0u);
  EXPECT_EQ(error_of("auth: { jwks_url: \"https://idp/jwks\", audience: a }\n" + kMinimal),
            "auth.issuer: required when auth.jwks_url is set");
  EXPECT_EQ(error_of("auth: { jwks_url: \"https://idp/jwks\", issuer: i }\n" + kMinimal),
            "auth.audience: required when auth.jwks_url is set");
  EXPECT_EQ(error_of("auth: { jwks_url: \"ftp://idp/jwks\", issuer: i, audience: a }\n" + kMinimal),
            "auth.jwks_url: must be an http:// or https:// URL with a host");
  EXPECT_EQ(err("algorithms: [RS256, none]"),
            "auth.algorithms[1]: 'none' is refused: an unsigned token proves nothing");
  EXPECT_EQ(err("algorithms: [HS256]").find("auth.algorithms[0]: 'HS256' is refused: HMAC needs a secret"),
            0u);
  EXPECT_EQ(err("algorithms: [hs512]").find("auth.algorithms[0]: 'hs512' is refused: HMAC"), 0u);
  EXPECT_EQ(
      err("algorithms: [ES512]").find("auth.algorithms[0]: 'ES512' is not a supported algorithm (RS256,"),
      0u);
  EXPECT_EQ(err("algorithms: []"), "auth.algorithms: must name at least one algorithm");
  EXPECT_EQ(err("algorithms: RS256"), "auth.algorithms: must be a list of strings");
  EXPECT_EQ(err("leeway_s: 601"), "auth.leeway_s: 601 is out of range [0, 600]");
  EXPECT_EQ(err("leeway_s: -1"), "auth.leeway_s: -1 is out of range [0, 600]");
  EXPECT_EQ(err("tenant_claim: \"\""), "auth.tenant_claim: must not be empty");
  EXPECT_EQ(err("scope_claim: 3"), "auth.scope_claim: must be a string");
  EXPECT_EQ(err("jwks_timeout_ms: 0").find("auth.jwks_timeout_ms: 0 is out of range"), 0u);
  EXPECT_EQ(err("jwks_default_ttl_ms: 5000, jwks_max_ttl_ms: 4000"),
            "auth.jwks_default_ttl_ms: must not exceed auth.jwks_max_ttl_ms (4000)");
  EXPECT_EQ(err("max_token_bytes: 100").find("auth.max_token_bytes: 100 is out of range"), 0u);
  EXPECT_EQ(err("jwks_ca_file: [a]"), "auth.jwks_ca_file: must be a string");
}

TEST(ConfigLoader, JwtKeysNeedNoIssuerWhileJwtsAreOff) {
  auto c = load_text("auth: { tenant_claim: org, algorithms: [ES256] }\n" + kMinimal);
  EXPECT_EQ(c.auth.jwks_url, "");
  EXPECT_EQ(c.auth.tenant_claim, "org");
}

TEST(ConfigLoader, PiiDefaultsToFlagWithTheThreeModesAndFourCriticalCategories) {
  auto c = load_text(kMinimal);
  EXPECT_EQ(c.pii.default_mode, "flag");
  EXPECT_EQ(c.pii.modes.size(), 3u);
  EXPECT_TRUE(c.pii.modes.count("block") && c.pii.modes.count("mask") && c.pii.modes.count("flag"));
  EXPECT_EQ(c.pii.critical, (std::vector<std::string>{"payment_card", "ssn", "iban", "secret"}));
}

TEST(ConfigLoader, ReadsThePiiSection) {
  auto c = load_text(R"(
pii:
  default_mode: mask
  critical: [email, secret]
  modes:
    mask: { placeholder: "<{TAG}#{N}>" }
    flag:
)" + kMinimal);
  EXPECT_EQ(c.pii.default_mode, "mask");
  EXPECT_EQ(c.pii.critical, (std::vector<std::string>{"email", "secret"}));
  ASSERT_EQ(c.pii.modes.size(), 2u) << "a listed set replaces the default three";
  EXPECT_EQ(c.pii.modes.at("mask").at("placeholder"), "<{TAG}#{N}>");
  EXPECT_TRUE(c.pii.modes.at("flag").is_object());
  EXPECT_EQ(load_text("pii: { default_mode: off }\n" + kMinimal).pii.default_mode, "off");
}

TEST(ConfigLoader, PiiErrorsNameTheKey) {
  EXPECT_EQ(error_of("pii: { default_mode: redact }\n" + kMinimal),
            "pii.default_mode: 'redact' is neither 'off' nor a mode listed under pii.modes");
  EXPECT_EQ(error_of("pii: { modes: { flag: {} }, default_mode: mask }\n" + kMinimal),
            "pii.default_mode: 'mask' is neither 'off' nor a mode listed under pii.modes");
  EXPECT_EQ(error_of("pii: { critical: [passport] }\n" + kMinimal)
                .find("pii.critical: unknown category 'passport'"),
            0u);
  EXPECT_EQ(error_of("pii: { modes: { off: {} } }\n" + kMinimal),
            "pii.modes.off: a mode name is lower-case letters, digits and '_', and not 'off'");
  EXPECT_EQ(error_of("pii: { modes: { Mask: {} } }\n" + kMinimal),
            "pii.modes.Mask: a mode name is lower-case letters, digits and '_', and not 'off'");
  EXPECT_EQ(error_of("pii: { modes: { mask: 3 } }\n" + kMinimal),
            "pii.modes.mask: must be a mapping of the mode plugin's options (or empty)");
  EXPECT_EQ(error_of("pii: { default: flag }\n" + kMinimal).find("pii.default: unknown key"), 0u);
}

TEST(ConfigLoader, IdempotencyAndAuditSectionsHaveDefaultsBoundsAndNoUnknownKeys) {
  auto c = load_text(kMinimal);
  EXPECT_EQ(c.idempotency.ttl_ms, 24LL * 3'600'000);
  EXPECT_EQ(c.idempotency.max_response_bytes, 1024u * 1024);
  EXPECT_EQ(c.audit.flush_interval_ms, 50);
  EXPECT_EQ(c.audit.checkpoint_interval_ms, 60000);
  c = load_text(
      kMinimal +
      "idempotency: { ttl_ms: 5000, max_response_bytes: 4096, wait_ms: 1000, in_flight_ms: 60000 }\n"
      "audit: { flush_interval_ms: 10, checkpoint_interval_ms: 1000, queue_limit: 50 }\n");
  EXPECT_EQ(c.idempotency.ttl_ms, 5000);
  EXPECT_EQ(c.idempotency.wait_ms, 1000);
  EXPECT_EQ(c.audit.queue_limit, 50u);
  EXPECT_NE(error_of(kMinimal + "idempotency: { ttl_ms: 10 }\n").find("idempotency.ttl_ms"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal + "idempotency: { ttl: 10 }\n").find("idempotency.ttl"), std::string::npos);
  EXPECT_NE(error_of(kMinimal + "audit: { flush_interval_ms: 0 }\n").find("audit.flush_interval_ms"),
            std::string::npos);
}

}  // namespace

TEST(ConfigLoader, LoggingFormatAndAccessLog) {
  const auto defaults = load_text(kMinimal).logging;
  EXPECT_EQ(defaults.level, "info");
  EXPECT_EQ(defaults.format, "json");
  EXPECT_TRUE(defaults.access_log);
  EXPECT_EQ(defaults.access_log_format, "json");
  const auto set =
      load_text("logging: { level: warn, format: text, access_log: false, access_log_format: combined }\n" +
                kMinimal)
          .logging;
  EXPECT_EQ(set.level, "warn");
  EXPECT_EQ(set.format, "text");
  EXPECT_FALSE(set.access_log);
  EXPECT_EQ(set.access_log_format, "combined");
  EXPECT_NE(error_of("logging: { level: loud }\n" + kMinimal).find("trace, debug, info, warn, error, off"),
            std::string::npos);
  EXPECT_NE(error_of("logging: { format: xml }\n" + kMinimal).find("logging.format"), std::string::npos);
  EXPECT_NE(error_of("logging: { access_log_format: clf }\n" + kMinimal).find("logging.access_log_format"),
            std::string::npos);
  EXPECT_NE(error_of("logging: { access_log: maybe }\n" + kMinimal).find("logging.access_log"),
            std::string::npos);
}
