// Catalog: concrete and tier aliases resolve to the routes that serve them,
// and /v1/models lists both.
#include "catalog/catalog.h"
#include "catalog/parameters.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace {

using modelgw::catalog::Catalog;
using modelgw::catalog::ModelRoute;

ModelRoute route(const std::string& alias, const std::string& provider) {
  ModelRoute r;
  r.entry.alias = alias;
  r.entry.provider = provider;
  r.entry.model = alias + "-upstream";
  return r;
}

TEST(Catalog, ResolvesAConcreteAliasToItself) {
  Catalog c;
  c.add(route("fast", "openai"));
  const auto* targets = c.resolve("fast");
  ASSERT_NE(targets, nullptr);
  ASSERT_EQ(targets->size(), 1u);
  EXPECT_EQ((*targets)[0]->entry.alias, "fast");
  EXPECT_EQ((*targets)[0]->entry.model, "fast-upstream");
  EXPECT_EQ(c.resolve("slow"), nullptr);
  EXPECT_EQ(c.resolve(""), nullptr);
  EXPECT_EQ(c.resolve("FAST"), nullptr);
}

TEST(Catalog, ResolvesATierToItsRouteInOrder) {
  Catalog c;
  c.add(route("a", "openai"));
  c.add(route("b", "anthropic"));
  c.add(route("c", "gemini"));
  c.add_tier("best", {"c", "a"});
  const auto* targets = c.resolve("best");
  ASSERT_NE(targets, nullptr);
  ASSERT_EQ(targets->size(), 2u);
  // The very objects a concrete lookup gives, not copies.
  EXPECT_EQ((*targets)[0], c.resolve("c")->front());
  EXPECT_EQ((*targets)[1], c.resolve("a")->front());
  EXPECT_EQ((*targets)[0]->entry.provider, "gemini");
}

TEST(Catalog, TierPointersStayValidAsMoreRoutesAreAdded) {
  Catalog c;
  c.add(route("m", "openai"));
  c.add_tier("t", {"m"});
  for (int i = 0; i < 50; ++i) c.add(route("extra" + std::to_string(i), "openai"));
  EXPECT_EQ(c.resolve("t")->front()->entry.alias, "m");
}

TEST(Catalog, TierNamingAnUnknownAliasIsALogicError) {
  Catalog c;
  c.add(route("a", "openai"));
  EXPECT_THROW(c.add_tier("best", {"a", "nope"}), std::logic_error);
}

TEST(Catalog, ModelsJsonListsConcreteAliasesAndTiers) {
  Catalog c;
  c.add(route("zeta", "openai"));
  c.add(route("alpha", "anthropic"));
  c.add_tier("best", {"alpha", "zeta"});
  c.seal(1700000000);
  const auto doc = nlohmann::json::parse(c.models_json());
  EXPECT_EQ(doc.at("object"), "list");
  const auto& data = doc.at("data");
  ASSERT_EQ(data.size(), 3u);
  std::map<std::string, std::string> owners;
  for (const auto& m : data) {
    EXPECT_EQ(m.at("object"), "model");
    EXPECT_EQ(m.at("created"), 1700000000);
    owners[m.at("id").get<std::string>()] = m.at("owned_by").get<std::string>();
  }
  EXPECT_EQ(owners["zeta"], "openai");
  EXPECT_EQ(owners["alpha"], "anthropic");
  EXPECT_EQ(owners["best"], "modelgw");
  EXPECT_EQ(doc.dump().find("request_id"), std::string::npos);
}

TEST(Catalog, ModelsJsonIsEmptyBeforeSealAndAListAfter) {
  Catalog c;
  EXPECT_TRUE(c.models_json().empty());
  c.seal(1);
  const auto doc = nlohmann::json::parse(c.models_json());
  EXPECT_TRUE(doc.at("data").is_array());
  EXPECT_TRUE(doc.at("data").empty());
}

TEST(CatalogParameters, CoreMembers) {
  using modelgw::catalog::is_core_member;
  for (const char* name : {"model", "messages", "stream", "stream_options"})
    EXPECT_TRUE(is_core_member(name));
  for (const char* name : {"temperature", "Model", "", "tools"}) EXPECT_FALSE(is_core_member(name)) << name;
}

TEST(CatalogParameters, KnownParameters) {
  using modelgw::catalog::is_known_parameter;
  using modelgw::catalog::known_parameters;
  for (const char* name :
       {"temperature", "top_p", "max_tokens", "max_completion_tokens", "tools", "tool_choice",
        "response_format", "reasoning_effort", "seed", "stop", "n", "user"}) {
    EXPECT_TRUE(is_known_parameter(name)) << name;
  }
  for (const char* name :
       {"model", "messages", "stream", "stream_options", "temprature", "", "TEMPERATURE"}) {
    EXPECT_FALSE(is_known_parameter(name)) << name;
  }
  for (auto name : known_parameters()) EXPECT_TRUE(is_known_parameter(name)) << name;
}

TEST(CatalogParameters, DefaultsAreKnownAndDistinct) {
  auto defaults = modelgw::catalog::default_supported_parameters();
  ASSERT_FALSE(defaults.empty());
  for (const auto& name : defaults) {
    EXPECT_TRUE(modelgw::catalog::is_known_parameter(name)) << name;
    EXPECT_EQ(std::count(defaults.begin(), defaults.end(), name), 1) << name;
  }
  for (const char* name :
       {"temperature", "top_p", "max_tokens", "max_completion_tokens", "tools", "tool_choice"}) {
    EXPECT_NE(std::find(defaults.begin(), defaults.end(), name), defaults.end()) << name;
  }
}

}  // namespace
