#include "chat/secret_redactor.h"

#include <gtest/gtest.h>

namespace {

TEST(SecretRedactor, RedactsConfiguredSecretsAndLongFragments) {
  modelgw::chat::SecretRedactor r;
  r.add_from_config(
      {{"api_key", "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"},
       {"headers", {{"X-Api-Token", "tok-1234567890abcdef"}, {"X-Trace", "not-a-secret-value"}}},
       {"base_url", "https://api.example.com/v1"}});
  EXPECT_EQ(r.redact("bad key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123!"), "bad key ***!");
  EXPECT_EQ(r.redact("tail GHIJKLMNOPQRSTUVWXYZ echoed").find("GHIJKLMNOPQRSTUV"), std::string::npos);
  EXPECT_EQ(r.redact("tok-1234567890abcdef"), "***");
  EXPECT_EQ(r.redact("not-a-secret-value and https://api.example.com/v1"),
            "not-a-secret-value and https://api.example.com/v1");
  EXPECT_EQ(r.redact("the upstream provider failed"), "the upstream provider failed");
  // Short fragments, as vendors show them masked, are harmless and kept.
  EXPECT_EQ(r.redact("Incorrect API key provided: sk-pr***23"), "Incorrect API key provided: sk-pr***23");
}

TEST(SecretRedactor, IgnoresShortValues) {
  modelgw::chat::SecretRedactor r;
  r.add("none");
  EXPECT_EQ(r.redact("none of this"), "none of this");
}

}  // namespace
