#include "errors/api_error.h"
#include "http/server_call.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace {

using modelgw::errors::ApiError;

ApiError of_status(int status) {
  return ApiError{status, "c", "m", {}};
}

TEST(ApiError, TypeFollowsStatusAsTheContractSays) {
  EXPECT_EQ(of_status(400).type(), "invalid_request_error");
  EXPECT_EQ(of_status(401).type(), "authentication_error");
  EXPECT_EQ(of_status(402).type(), "invalid_request_error");
  EXPECT_EQ(of_status(403).type(), "authentication_error");
  EXPECT_EQ(of_status(404).type(), "invalid_request_error");
  EXPECT_EQ(of_status(413).type(), "invalid_request_error");
  EXPECT_EQ(of_status(422).type(), "invalid_request_error");
  EXPECT_EQ(of_status(429).type(), "rate_limit_error");
  for (int s : {500, 502, 503, 504}) EXPECT_EQ(of_status(s).type(), "api_error");
}

TEST(ApiError, EnvelopeHasExactlyTheFiveFields) {
  auto j = nlohmann::json::parse(modelgw::errors::error_envelope(
      ApiError{400, "missing_required_field", "'model' is required", "model"}, "req_abc"));
  ASSERT_EQ(j.size(), 1u);
  const auto& e = j.at("error");
  EXPECT_EQ(e.size(), 5u);
  EXPECT_EQ(e.at("type"), "invalid_request_error");
  EXPECT_EQ(e.at("code"), "missing_required_field");
  EXPECT_EQ(e.at("message"), "'model' is required");
  EXPECT_EQ(e.at("param"), "model");
  EXPECT_EQ(e.at("request_id"), "req_abc");
  auto null_param =
      nlohmann::json::parse(modelgw::errors::error_envelope(ApiError{500, "internal_error", "x", {}}, "r"));
  EXPECT_TRUE(null_param["error"]["param"].is_null());
}

TEST(ApiError, EnvelopeSurvivesInvalidUtf8InAMessage) {
  auto text = modelgw::errors::error_envelope(ApiError{404, "not_found", "no endpoint at /\xff", {}}, "r");
  EXPECT_TRUE(nlohmann::json::accept(text));
}

TEST(RequestIdSplice, PrependsRequestIdWithoutParsing) {
  std::string out;
  ASSERT_TRUE(modelgw::http::append_with_request_id(out, R"({"id":"x","n":1})", "req_1"));
  EXPECT_EQ(out, R"({"request_id":"req_1","id":"x","n":1})");
  out.clear();
  ASSERT_TRUE(modelgw::http::append_with_request_id(out, "  { }", "req_2"));
  EXPECT_EQ(nlohmann::json::parse(out), nlohmann::json({{"request_id", "req_2"}}));
  out.clear();
  EXPECT_FALSE(modelgw::http::append_with_request_id(out, "[1]", "r"));
  EXPECT_FALSE(modelgw::http::append_with_request_id(out, "", "r"));
  EXPECT_FALSE(modelgw::http::append_with_request_id(out, "{", "r"));
}

using modelgw::errors::input_excerpt;

TEST(InputExcerpt, ShortPrintableTextIsUnchanged) {
  EXPECT_EQ(input_excerpt(""), "");
  EXPECT_EQ(input_excerpt("gpt-4o-mini"), "gpt-4o-mini");
  EXPECT_EQ(input_excerpt(std::string(64, 'a')), std::string(64, 'a'));
}

TEST(InputExcerpt, EscapesControlBytesQuotesBackslashesAndNonAscii) {
  EXPECT_EQ(input_excerpt(std::string("a\"b\\c\n\x7f\0", 8)), "a\\x22b\\x5cc\\x0a\\x7f\\x00");
  EXPECT_EQ(input_excerpt("\xc3\xa9\xff"), "\\xc3\\xa9\\xff");
  // The result quotes safely inside JSON and in a log line.
  for (char c : input_excerpt("\x01\"\\\x80")) EXPECT_TRUE(c >= 0x20 && c < 0x7f && c != '"');
}

TEST(InputExcerpt, LongTextIsCutAndItsSizeGiven) {
  EXPECT_EQ(input_excerpt(std::string(65, 'x')), std::string(64, 'x') + "... (65 bytes)");
  EXPECT_EQ(input_excerpt("abcdef", 3), "abc... (6 bytes)");
  EXPECT_EQ(input_excerpt("abc", 0), "... (3 bytes)");
}

TEST(InputExcerpt, CutsWholeBytesNeverAnEscape) {
  // The 3rd byte is escaped whole, or not shown at all.
  EXPECT_EQ(input_excerpt("ab\ncd", 3), "ab\\x0a... (5 bytes)");
  EXPECT_EQ(input_excerpt("ab\ncd", 2), "ab... (5 bytes)");
}

TEST(InputExcerpt, OutputIsBoundedWhateverTheInput) {
  const std::string huge(4 * 1024 * 1024, '\xff');
  for (std::size_t max : {0, 1, 64, 128}) {
    EXPECT_LE(input_excerpt(huge, max).size(), 4 * max + 32) << max;
  }
  EXPECT_EQ(input_excerpt(huge, 1), "\\xff... (4194304 bytes)");
}

}  // namespace
