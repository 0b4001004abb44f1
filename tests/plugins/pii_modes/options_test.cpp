// on_pii_new: the options object each mode accepts and what it refuses.
#include "pii_harness.h"

#include <gtest/gtest.h>

#include <string>

namespace pii_test {
namespace {

class Options : public ::testing::TestWithParam<Mode> {};

TEST_P(Options, AcceptsAnEmptyObject) {
  EXPECT_EQ(try_options(GetParam(), "{}").first, MGW_OK);
  EXPECT_EQ(try_options(GetParam(), " { }\n").first, MGW_OK);
}

TEST_P(Options, TakesNoOptionsAsAnEmptyObject) {
  EXPECT_EQ(try_options(GetParam(), "").first, MGW_OK);
  EXPECT_EQ(try_options(GetParam(), "  \n").first, MGW_OK);
}

TEST_P(Options, RefusesAnUnknownOptionNamingIt) {
  const auto [status, error] = try_options(GetParam(), R"({"colour": "red"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_NE(error.find("unknown option \"colour\""), std::string::npos) << error;
  EXPECT_NE(error.find(name(GetParam())), std::string::npos) << error;
}

TEST_P(Options, NamesTheUnknownOptionButNeverEchoesItsValue) {
  const auto [status, error] = try_options(GetParam(), R"({"api_key": "sk-live-DoNotEcho123"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_NE(error.find("api_key"), std::string::npos) << error;
  EXPECT_EQ(error.find("DoNotEcho123"), std::string::npos) << error;
}

TEST_P(Options, RefusesWhatIsNotAJsonObject) {
  for (const char* bad : {"[]", "42", "\"mask\"", "null", "true", "{", "{\"a\":}", "not json", "{} {}"}) {
    const auto [status, error] = try_options(GetParam(), bad);
    EXPECT_EQ(status, MGW_INVALID_ARGUMENT) << bad;
    EXPECT_NE(error.find("JSON object"), std::string::npos) << bad << ": " << error;
  }
}

TEST_P(Options, RefusesANullOptionsPointerWithALength) {
  FakeHost host;
  TextRecorder error;
  mgw_pii* p = nullptr;
  EXPECT_EQ(hooks(GetParam()).on_pii_new(host.api(), mgw_str{nullptr, 3}, &p, &error.sink),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
}

TEST_P(Options, RefusesANullOut) {
  FakeHost host;
  TextRecorder error;
  EXPECT_EQ(hooks(GetParam()).on_pii_new(host.api(), mgw::str("{}"), nullptr, &error.sink),
            MGW_INVALID_ARGUMENT);
}

TEST_P(Options, WorksWithoutAnErrorSink) {
  FakeHost host;
  mgw_pii* p = nullptr;
  EXPECT_EQ(hooks(GetParam()).on_pii_new(host.api(), mgw::str(R"({"nope":1})"), &p, nullptr),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
}

TEST_P(Options, DestroyingNullHandlesIsHarmless) {
  hooks(GetParam()).on_pii_destroy(nullptr);
  hooks(GetParam()).on_pii_scope_destroy(nullptr);
}

INSTANTIATE_TEST_SUITE_P(Modes, Options, ::testing::ValuesIn(kAllModes), param_name);

TEST(BlockAndFlagOptions, RefuseThePlaceholderOption) {
  for (Mode m : {Mode::block, Mode::flag}) {
    const auto [status, error] = try_options(m, R"({"placeholder": "[{TAG}_{N}]"})");
    EXPECT_EQ(status, MGW_INVALID_ARGUMENT) << name(m);
    EXPECT_NE(error.find("placeholder"), std::string::npos) << error;
  }
}

TEST(MaskOptions, AcceptsThePlaceholderFormat) {
  EXPECT_EQ(try_options(Mode::mask, R"({"placeholder": "[{TAG}_{N}]"})").first, MGW_OK);
  EXPECT_EQ(try_options(Mode::mask, R"({"placeholder": "<{TAG}#{N}>"})").first, MGW_OK);
  EXPECT_EQ(try_options(Mode::mask, R"({"placeholder": "{N}"})").first, MGW_OK);
  EXPECT_EQ(try_options(Mode::mask, R"({"placeholder": "«{TAG} {N} {TAG}»"})").first, MGW_OK);
}

TEST(MaskOptions, RefusesAFormatWithoutN) {
  const auto [status, error] = try_options(Mode::mask, R"({"placeholder": "[{TAG}]"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_NE(error.find("placeholder"), std::string::npos) << error;
  EXPECT_NE(error.find("{N}"), std::string::npos) << error;
  EXPECT_EQ(try_options(Mode::mask, R"({"placeholder": ""})").first, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(try_options(Mode::mask, R"({"placeholder": "[REDACTED]"})").first, MGW_INVALID_ARGUMENT);
}

TEST(MaskOptions, RefusesStrayBracesAndUnknownFields) {
  for (const char* bad :
       {R"({"placeholder": "[{TAG}_{X}_{N}]"})", R"({"placeholder": "{N}}"})", R"({"placeholder": "{{N}"})",
        R"({"placeholder": "{n}"})", R"({"placeholder": "{N"})"}) {
    const auto [status, error] = try_options(Mode::mask, bad);
    EXPECT_EQ(status, MGW_INVALID_ARGUMENT) << bad;
    EXPECT_NE(error.find("brace"), std::string::npos) << bad << ": " << error;
  }
}

TEST(MaskOptions, RefusesAPlaceholderThatIsNotAString) {
  for (const char* bad :
       {R"({"placeholder": 5})", R"({"placeholder": null})", R"({"placeholder": ["{N}"]})"}) {
    const auto [status, error] = try_options(Mode::mask, bad);
    EXPECT_EQ(status, MGW_INVALID_ARGUMENT) << bad;
    EXPECT_NE(error.find("must be a string"), std::string::npos) << error;
  }
}

TEST(MaskOptions, RefusesAnOverlongFormat) {
  const std::string format = "{N}" + std::string(300, 'x');
  EXPECT_EQ(try_options(Mode::mask, R"({"placeholder": ")" + format + "\"}").first, MGW_INVALID_ARGUMENT);
}

TEST(MaskOptions, RefusesAnUnknownOptionNextToPlaceholder) {
  const auto [status, error] = try_options(Mode::mask, R"({"placeholder": "[{TAG}_{N}]", "salt": "x"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_NE(error.find("\"salt\""), std::string::npos) << error;
}

}  // namespace
}  // namespace pii_test
