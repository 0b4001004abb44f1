// The anthropic plugin's fixture tests use the shared provider harness
// (tests/plugins/provider_harness), loaded with this plugin; what is below is
// particular to anthropic.
#pragma once

#include "provider_harness.h"

#include <string_view>

namespace anthropic_test {

using namespace provider_test;

// The API key the default Provider is configured with: in Anthropic's format,
// so masking tests see what a real leak would look like.
inline constexpr std::string_view kApiKey = "sk-ant-api03-Test0Key1Abc2Def3Ghi4-Jkl5Mno6AA";
inline constexpr std::string_view kDefaultConfig =
    R"({"api_key":"sk-ant-api03-Test0Key1Abc2Def3Ghi4-Jkl5Mno6AA"})";

}  // namespace anthropic_test
