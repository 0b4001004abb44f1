// The openai plugin's fixture tests use the shared provider harness
// (tests/plugins/provider_harness), loaded with this plugin; what is below is
// particular to openai.
#pragma once

#include "provider_harness.h"

#include <string_view>

namespace openai_test {

using namespace provider_test;

}  // namespace openai_test
