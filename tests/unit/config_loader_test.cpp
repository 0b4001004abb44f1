#include "config/config_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using modelgw::config::ConfigError;
using modelgw::config::load_text;

const std::string kMinimal = R"(
providers:
  openai: { plugin: openai, base_url: "https://api.openai.com/v1", api_key: "k", timeout_ms: 1234 }
catalog:
  gpt-4o-mini: { provider: openai, model: "gpt-4o-mini", context_window: 128000 }
)";

std::string error_of(const std::string& yaml) {
  try {
    load_text(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

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

}  // namespace
