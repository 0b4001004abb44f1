#include "http/api_error.h"
#include "http/call.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace {

using modelgw::http::ApiError;

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
  auto j = nlohmann::json::parse(modelgw::http::error_envelope(
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
      nlohmann::json::parse(modelgw::http::error_envelope(ApiError{500, "internal_error", "x", {}}, "r"));
  EXPECT_TRUE(null_param["error"]["param"].is_null());
}

TEST(ApiError, EnvelopeSurvivesInvalidUtf8InAMessage) {
  auto text = modelgw::http::error_envelope(ApiError{404, "not_found", "no endpoint at /\xff", {}}, "r");
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

}  // namespace
