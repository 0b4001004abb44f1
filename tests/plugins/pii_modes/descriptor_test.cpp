// The entry symbol and descriptor of each mode: what the gateway's loader
// checks first.
#include "pii_harness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pii_test {
namespace {

class Descriptor : public ::testing::TestWithParam<Mode> {};

TEST_P(Descriptor, NamesTheModeWithThisAbiAndThePiiKind) {
  const mgw_plugin_descriptor& d = descriptor(GetParam());
  EXPECT_EQ(d.struct_size, sizeof(mgw_plugin_descriptor));
  EXPECT_EQ(d.abi_major, MGW_ABI_MAJOR);
  EXPECT_EQ(d.abi_minor, MGW_ABI_MINOR);
  EXPECT_EQ(d.kind, MGW_KIND_PII);
  ASSERT_NE(d.name, nullptr);
  EXPECT_STREQ(d.name, name(GetParam()));
  ASSERT_NE(d.version, nullptr);
  EXPECT_STREQ(d.version, "1.0.0");
  EXPECT_NE(d.hooks, nullptr);
}

TEST_P(Descriptor, HookTableIsCompleteAndSized) {
  const mgw_pii_hooks& h = hooks(GetParam());
  EXPECT_EQ(h.struct_size, sizeof(mgw_pii_hooks));
  EXPECT_NE(h.on_pii_new, nullptr);
  EXPECT_NE(h.on_pii_destroy, nullptr);
  EXPECT_NE(h.on_pii_scope_new, nullptr);
  EXPECT_NE(h.on_pii_scope_destroy, nullptr);
  EXPECT_NE(h.on_pii_apply, nullptr);
}

TEST_P(Descriptor, RefusesAnotherAbiMajorAndSaysWhy) {
  FakeHost host;
  mgw_host_api newer = *host.api();  // same callbacks, logs land in `host`
  newer.abi_major = MGW_ABI_MAJOR + 1;
  EXPECT_EQ(plugin_entry(GetParam())(&newer), nullptr);
  const auto logs = host.logs();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].first, MGW_LOG_ERROR);
  EXPECT_NE(logs[0].second.find("ABI major " + std::to_string(MGW_ABI_MAJOR + 1)), std::string::npos)
      << logs[0].second;
}

TEST_P(Descriptor, AcceptsAnotherAbiMinor) {
  FakeHost host;
  mgw_host_api other = *host.api();
  other.abi_minor = MGW_ABI_MINOR + 7;
  EXPECT_NE(plugin_entry(GetParam())(&other), nullptr);
}

TEST_P(Descriptor, RefusesANullHost) {
  EXPECT_EQ(plugin_entry(GetParam())(nullptr), nullptr);
}

TEST_P(Descriptor, FileIsNamedAfterKindAndMode) {
  const std::string p = path(GetParam());
  const std::string expected = std::string("/mgw_pii_") + name(GetParam()) + ".so";
  ASSERT_GE(p.size(), expected.size());
  EXPECT_EQ(p.substr(p.size() - expected.size()), expected);
}

TEST_P(Descriptor, ExportsOnlyTheEntrySymbol) {
  EXPECT_EQ(exported_symbols(path(GetParam())), std::vector<std::string>{MGW_ENTRY_SYMBOL});
}

INSTANTIATE_TEST_SUITE_P(Modes, Descriptor, ::testing::ValuesIn(kAllModes), param_name);

}  // namespace
}  // namespace pii_test
