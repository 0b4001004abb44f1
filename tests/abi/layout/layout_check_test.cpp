// The layout checker's rules, on small hand-made layouts: each test names a
// change to plugin.h and what the snapshot test must say about it.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aggregate_field_count.hpp"
#include "layout_completeness.hpp"
#include "layout_diff.hpp"
#include "layout_model.hpp"
#include "layout_verdict.hpp"

namespace {

using abi_layout::Layout;
using abi_layout::Outcome;

constexpr std::string_view kRegenerate = "cmake --build build --target abi_layout_snapshot";

// A snapshot of ABI 1.3 with a fixed and a growable struct.
const std::string kSnapshot =
    "# comment\n"
    "abi 1.3\n"
    "pointer_size 8\n"
    "const MGW_OK 0\n"
    "const MGW_ENTRY_SYMBOL \"modelgw_plugin_entry\"\n"
    "struct mgw_str size 16 align 8 fixed\n"
    "  ptr offset 0 size 8\n"
    "  len offset 8 size 8\n"
    "struct mgw_hooks size 24 align 8 growable\n"
    "  struct_size offset 0 size 4\n"
    "  on_a offset 8 size 8\n"
    "  on_b offset 16 size 8\n";

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

Layout parsed(const std::string& text) {
  std::string error;
  std::optional<Layout> layout = abi_layout::parse_layout(text, error);
  EXPECT_TRUE(layout.has_value()) << error;
  return layout.value_or(Layout{});
}

abi_layout::Verdict judge(const std::string& dump) {
  const Layout old_layout = parsed(kSnapshot);
  const Layout new_layout = parsed(dump);
  return abi_layout::judge_snapshot(old_layout, new_layout, abi_layout::diff_layouts(old_layout, new_layout),
                                    dump == kSnapshot, kRegenerate);
}

// ABI 1.4 appending on_c to mgw_hooks.
const std::string kAppended =
    replaced(replaced(kSnapshot, "abi 1.3", "abi 1.4"), "mgw_hooks size 24 align 8 growable\n",
             "mgw_hooks size 32 align 8 growable\n") +
    "  on_c offset 24 size 8\n";

TEST(LayoutModel, ParsesTheCanonicalText) {
  const Layout layout = parsed(kSnapshot);
  EXPECT_EQ(layout.major, 1);
  EXPECT_EQ(layout.minor, 3);
  EXPECT_EQ(layout.pointer_size, 8U);
  ASSERT_NE(layout.find_constant("MGW_ENTRY_SYMBOL"), nullptr);
  EXPECT_EQ(layout.find_constant("MGW_ENTRY_SYMBOL")->value, "\"modelgw_plugin_entry\"");
  const abi_layout::Struct* hooks = layout.find_struct("mgw_hooks");
  ASSERT_NE(hooks, nullptr);
  EXPECT_TRUE(hooks->growable);
  EXPECT_FALSE(layout.find_struct("mgw_str")->growable);
  ASSERT_NE(hooks->find_field("on_b"), nullptr);
  EXPECT_EQ(hooks->find_field("on_b")->offset, 16U);
}

TEST(LayoutModel, NamesTheMalformedLine) {
  std::string error;
  EXPECT_FALSE(abi_layout::parse_layout(replaced(kSnapshot, "  on_a offset 8", "  on_a offset x"), error));
  EXPECT_NE(error.find("line 11"), std::string::npos) << error;
  EXPECT_FALSE(abi_layout::parse_layout("pointer_size 8\n", error));
}

TEST(LayoutSnapshot, TheSameTextMatches) {
  EXPECT_EQ(judge(kSnapshot).outcome, Outcome::kMatches);
}

TEST(LayoutSnapshot, AHookAppendedInANewMinorAsksToRegenerate) {
  const abi_layout::Verdict verdict = judge(kAppended);
  EXPECT_EQ(verdict.outcome, Outcome::kRegenerate) << verdict.message;
  EXPECT_NE(verdict.message.find(kRegenerate), std::string::npos) << verdict.message;
}

TEST(LayoutSnapshot, AHookAppendedWithoutANewVersionIsRejected) {
  const abi_layout::Verdict verdict = judge(replaced(kAppended, "abi 1.4", "abi 1.3"));
  EXPECT_EQ(verdict.outcome, Outcome::kRejected);
  EXPECT_NE(verdict.message.find("still 1.3"), std::string::npos) << verdict.message;
}

TEST(LayoutSnapshot, TheDiffShowsTheAppendedHookUnderItsStruct) {
  const abi_layout::LayoutDiff diff = abi_layout::diff_layouts(parsed(kSnapshot), parsed(kAppended));
  const std::vector<std::string> expected = {
      "- abi 1.3", "+ abi 1.4", "- struct mgw_hooks size 24 align 8 growable",
      "+ struct mgw_hooks size 32 align 8 growable", "+   on_c offset 24 size 8"};
  EXPECT_EQ(diff.lines, expected);
  EXPECT_TRUE(diff.breaking.empty());
}

TEST(LayoutSnapshot, AMovedFieldIsRejectedInAMinor) {
  const std::string moved =
      replaced(replaced(replaced(kSnapshot, "abi 1.3", "abi 1.4"), "on_a offset 8", "on_a offset 16"),
               "on_b offset 16", "on_b offset 8");
  const abi_layout::Verdict verdict = judge(moved);
  EXPECT_EQ(verdict.outcome, Outcome::kRejected);
  EXPECT_NE(verdict.message.find("mgw_hooks.on_a moved"), std::string::npos) << verdict.message;
}

TEST(LayoutSnapshot, AFieldInsertedBeforeTheEndIsRejectedInAMinor) {
  const std::string inserted =
      replaced(replaced(replaced(kSnapshot, "abi 1.3", "abi 1.4"), "size 24 align 8 growable",
                        "size 32 align 8 growable"),
               "  on_a offset 8 size 8\n  on_b offset 16 size 8\n",
               "  on_new offset 8 size 8\n  on_a offset 16 size 8\n  on_b offset 24 size 8\n");
  const abi_layout::Verdict verdict = judge(inserted);
  EXPECT_EQ(verdict.outcome, Outcome::kRejected);
  EXPECT_NE(verdict.message.find("on_new was added inside"), std::string::npos) << verdict.message;
}

TEST(LayoutSnapshot, ARemovedOrRenamedFieldIsRejectedInAMinor) {
  const abi_layout::Verdict verdict =
      judge(replaced(replaced(kSnapshot, "abi 1.3", "abi 1.4"), "  on_b offset", "  on_b2 offset"));
  EXPECT_EQ(verdict.outcome, Outcome::kRejected);
  EXPECT_NE(verdict.message.find("on_b was removed or renamed"), std::string::npos) << verdict.message;
}

TEST(LayoutSnapshot, AFixedStructMayNotGrowInAMinor) {
  const std::string grown =
      replaced(replaced(replaced(kSnapshot, "abi 1.3", "abi 1.4"), "mgw_str size 16 align 8 fixed",
                        "mgw_str size 24 align 8 fixed"),
               "  len offset 8 size 8\n", "  len offset 8 size 8\n  extra offset 16 size 8\n");
  const abi_layout::Verdict verdict = judge(grown);
  EXPECT_EQ(verdict.outcome, Outcome::kRejected);
  EXPECT_NE(verdict.message.find("mgw_str is fixed"), std::string::npos) << verdict.message;
}

TEST(LayoutSnapshot, AShrunkStructIsRejectedInAMinor) {
  const std::string shrunk = replaced(replaced(replaced(kSnapshot, "abi 1.3", "abi 1.4"),
                                               "size 24 align 8 growable", "size 16 align 8 growable"),
                                      "  on_b offset 16 size 8\n", "");
  EXPECT_EQ(judge(shrunk).outcome, Outcome::kRejected);
}

TEST(LayoutSnapshot, AConstantMayBeAddedButNotChanged) {
  const std::string bumped = replaced(kSnapshot, "abi 1.3", "abi 1.4");
  EXPECT_EQ(judge(replaced(bumped, "const MGW_OK 0\n", "const MGW_OK 0\nconst MGW_NEW 7\n")).outcome,
            Outcome::kRegenerate);
  const abi_layout::Verdict changed = judge(replaced(bumped, "const MGW_OK 0", "const MGW_OK 9"));
  EXPECT_EQ(changed.outcome, Outcome::kRejected);
  EXPECT_NE(changed.message.find("MGW_OK changed its value"), std::string::npos) << changed.message;
}

TEST(LayoutSnapshot, AStructMayBeAddedButNotRemoved) {
  const std::string bumped = replaced(kSnapshot, "abi 1.3", "abi 1.4");
  EXPECT_EQ(judge(bumped + "struct mgw_new size 8 align 8 growable\n  struct_size offset 0 size 4\n").outcome,
            Outcome::kRegenerate);
  const std::string removed = replaced(
      bumped, "struct mgw_str size 16 align 8 fixed\n  ptr offset 0 size 8\n  len offset 8 size 8\n", "");
  EXPECT_EQ(judge(removed).outcome, Outcome::kRejected);
}

TEST(LayoutSnapshot, ANewMajorAllowsAnyChange) {
  const std::string major =
      replaced(replaced(kSnapshot, "abi 1.3", "abi 2.0"), "on_a offset 8", "on_a offset 16");
  EXPECT_EQ(judge(major).outcome, Outcome::kRegenerate);
}

TEST(LayoutSnapshot, AVersionGoingBackIsRejected) {
  EXPECT_EQ(judge(replaced(kSnapshot, "abi 1.3", "abi 1.2")).outcome, Outcome::kRejected);
}

TEST(LayoutSnapshot, ANewOrderOfTheListAloneAsksToRegenerate) {
  const std::string reordered =
      replaced(kSnapshot, "const MGW_OK 0\nconst MGW_ENTRY_SYMBOL \"modelgw_plugin_entry\"\n",
               "const MGW_ENTRY_SYMBOL \"modelgw_plugin_entry\"\nconst MGW_OK 0\n");
  EXPECT_EQ(judge(reordered).outcome, Outcome::kRegenerate);
}

TEST(LayoutCompleteness, AFullListPasses) {
  EXPECT_TRUE(abi_layout::unlisted_fields(parsed(kSnapshot)).empty());
}

TEST(LayoutCompleteness, AMissingLastFieldLeavesBytesUncovered) {
  const auto problems =
      abi_layout::unlisted_fields(parsed(replaced(kSnapshot, "  on_b offset 16 size 8\n", "")));
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("after on_a"), std::string::npos) << problems[0];
}

TEST(LayoutCompleteness, AMissingMiddleFieldLeavesAGap) {
  const auto problems =
      abi_layout::unlisted_fields(parsed(replaced(kSnapshot, "  on_a offset 8 size 8\n", "")));
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("between struct_size and on_b"), std::string::npos) << problems[0];
}

TEST(LayoutCompleteness, AMissingFirstFieldIsFound) {
  const auto problems =
      abi_layout::unlisted_fields(parsed(replaced(kSnapshot, "  ptr offset 0 size 8\n", "")));
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("before it"), std::string::npos) << problems[0];
}

TEST(LayoutCompleteness, FieldsOutOfOrderOrTwiceAreFound) {
  const auto swapped = abi_layout::unlisted_fields(
      parsed(replaced(kSnapshot, "  on_a offset 8 size 8\n  on_b offset 16 size 8\n",
                      "  on_b offset 16 size 8\n  on_a offset 8 size 8\n")));
  bool named_order = false;
  for (const std::string& problem : swapped)
    named_order = named_order || problem.find("declaration order") != std::string::npos;
  EXPECT_TRUE(named_order);
  const auto twice = abi_layout::unlisted_fields(parsed(replaced(
      kSnapshot, "  on_b offset 16 size 8\n", "  on_b offset 16 size 8\n  on_b offset 16 size 8\n")));
  ASSERT_FALSE(twice.empty());
  EXPECT_NE(twice[0].find("listed twice"), std::string::npos) << twice[0];
}

TEST(LayoutCompleteness, FindsAStructOfTheHeaderMissingFromTheList) {
  const std::string header =
      "/* struct mgw_in_comment { */\n"
      "typedef struct mgw_opaque mgw_opaque;\n"
      "typedef struct mgw_str {\n  const char* ptr;\n} mgw_str;\n"
      "typedef struct mgw_hooks { uint32_t struct_size; } mgw_hooks;\n"
      "typedef struct mgw_param_spec\n{\n  uint32_t struct_size;\n} mgw_param_spec;\n"
      "void f(const struct mgw_str* s);\n";
  const std::vector<std::string> expected = {"mgw_param_spec"};
  EXPECT_EQ(abi_layout::unlisted_structs(parsed(kSnapshot), header), expected);
}

TEST(LayoutCompleteness, FindsAConstantOfTheHeaderMissingFromTheList) {
  const std::string header =
      "#define MGW_ABI_MAJOR 1\n"
      "#define MGW_ABI_MINOR 4\n"
      "#define MGW_OK 0 /* done */\n"
      "  #define MGW_NEW_STATUS 7\n"
      "/* #define MGW_IN_COMMENT 1 */\n"
      "#define MGW_HAS_FIELD(ptr, type, field) 1\n"
      "#define MODELGW_PLUGIN_H\n"
      "#define MGW_ENTRY_SYMBOL \"modelgw_plugin_entry\"\n";
  const std::vector<std::string> expected = {"MGW_NEW_STATUS"};
  EXPECT_EQ(abi_layout::unlisted_constants(parsed(kSnapshot), header), expected);
}

struct ThreeFields {
  std::uint32_t a;
  struct {
    const char* ptr;
    std::size_t len;
  } b;
  void (*c)(void*);
};
struct OneField {
  std::uint16_t a;
};
static_assert(abi_layout::aggregate_field_count<ThreeFields>() == 3);
static_assert(abi_layout::aggregate_field_count<OneField>() == 1);

}  // namespace
