#include "config/env_substitution.h"
#include "config/config.h"

#include <gtest/gtest.h>

namespace {

using modelgw::config::substitute_env;

std::optional<std::string> fake_env(const std::string& name) {
  if (name == "HOME_DIR") return "/home/x";
  if (name == "EMPTY") return "";
  return std::nullopt;
}

TEST(EnvSubstitution, ReplacesDefaultsAndReportsUnset) {
  std::vector<std::string> unset;
  EXPECT_EQ(substitute_env("${HOME_DIR}/db", "k", fake_env, unset), "/home/x/db");
  EXPECT_EQ(substitute_env("a${NOPE}b", "k", fake_env, unset), "ab");
  EXPECT_EQ(substitute_env("${NOPE:-dflt}", "k", fake_env, unset), "dflt");
  EXPECT_EQ(substitute_env("${EMPTY:-dflt}", "k", fake_env, unset), "dflt");
  EXPECT_EQ(substitute_env("$${HOME_DIR}", "k", fake_env, unset), "${HOME_DIR}");
  EXPECT_EQ(substitute_env("no refs $ here", "k", fake_env, unset), "no refs $ here");
  ASSERT_EQ(unset.size(), 1u);
  EXPECT_EQ(unset[0], "NOPE");
}

TEST(EnvSubstitution, RejectsMalformedReferencesNamingTheKey) {
  std::vector<std::string> unset;
  try {
    substitute_env("${OPEN", "providers.a.api_key", fake_env, unset);
    FAIL();
  } catch (const modelgw::config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("providers.a.api_key: unterminated"), std::string::npos);
  }
  EXPECT_THROW(substitute_env("${1BAD}", "k", fake_env, unset), modelgw::config::ConfigError);
  EXPECT_THROW(substitute_env("${A-B}", "k", fake_env, unset), modelgw::config::ConfigError);
}

}  // namespace
