// The gemini plugin's fixture tests use the shared provider harness
// (tests/plugins/provider_harness), loaded with this plugin; what is below is
// particular to gemini.
#pragma once

#include "provider_harness.h"

#include <string_view>

namespace gemini_test {

using namespace provider_test;

// The api_key the default Provider is configured with: shaped like a real
// Google key ("AIza" + 35 characters), so masking is tested on the real form.
inline constexpr std::string_view kKey = "AIzaSyTestKey0123456789abcdefghijklmno";

// on_build_request for a non-streamed call; the body sent upstream, parsed.
// Fails the test when the plugin refused.
Json gemini_body(std::string_view client_body, const CallContext& call = CallContext{});

// on_build_request that must be refused; the refusal.
mgw::testing::RecordedError refused(std::string_view client_body);

}  // namespace gemini_test
