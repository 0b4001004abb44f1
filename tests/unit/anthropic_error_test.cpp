// Anthropic's error envelope on its doors, and the anthropic-version check.
#include "errors/anthropic_error.h"
#include "messages/anthropic_version.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using modelgw::errors::ApiError;
using json = nlohmann::json;

TEST(AnthropicError, TheEnvelopeIsAnthropicsWithTheSpecsMembersInside) {
  const ApiError e{400, "missing_required_field", "'max_tokens' is required", "max_tokens"};
  const json body = json::parse(modelgw::errors::anthropic_error_envelope(e, "req_abc"));
  EXPECT_EQ(body["type"], "error");
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(body["error"]["message"], "'max_tokens' is required");
  EXPECT_EQ(body["error"]["code"], "missing_required_field");
  EXPECT_EQ(body["error"]["param"], "max_tokens");
  EXPECT_EQ(body["error"]["request_id"], "req_abc");
  EXPECT_EQ(body["request_id"], "req_abc");
  const json no_param =
      json::parse(modelgw::errors::anthropic_error_envelope(ApiError{500, "x", "m", {}}, "r"));
  EXPECT_TRUE(no_param["error"]["param"].is_null());
}

TEST(AnthropicError, EachStatusHasAnthropicsType) {
  using modelgw::errors::anthropic_error_type;
  EXPECT_EQ(anthropic_error_type(400), "invalid_request_error");
  EXPECT_EQ(anthropic_error_type(422), "invalid_request_error");
  EXPECT_EQ(anthropic_error_type(401), "authentication_error");
  EXPECT_EQ(anthropic_error_type(402), "billing_error");
  EXPECT_EQ(anthropic_error_type(403), "permission_error");
  EXPECT_EQ(anthropic_error_type(404), "not_found_error");
  EXPECT_EQ(anthropic_error_type(413), "request_too_large");
  EXPECT_EQ(anthropic_error_type(429), "rate_limit_error");
  EXPECT_EQ(anthropic_error_type(500), "api_error");
  EXPECT_EQ(anthropic_error_type(502), "api_error");
  EXPECT_EQ(anthropic_error_type(503), "overloaded_error");
  EXPECT_EQ(anthropic_error_type(529), "overloaded_error");
  EXPECT_EQ(anthropic_error_type(504), "timeout_error");
}

TEST(AnthropicError, InvalidUtf8InAMessageIsReplacedNotThrown) {
  const ApiError e{400, "invalid_parameter", std::string("bad \xff byte"), {}};
  EXPECT_NO_THROW(json::parse(modelgw::errors::anthropic_error_envelope(e, "r")));
}

TEST(AnthropicVersion, ThePublishedVersionsAndNoneAreServed) {
  using modelgw::messages::check_anthropic_version;
  EXPECT_FALSE(check_anthropic_version(""));
  EXPECT_FALSE(check_anthropic_version("2023-06-01"));
  EXPECT_FALSE(check_anthropic_version("2023-01-01"));
  EXPECT_FALSE(check_anthropic_version("2026-10-21")) << "what @anthropic-ai/sdk 1.14 sends";
  EXPECT_TRUE(check_anthropic_version("2022-12-31"));
  EXPECT_TRUE(check_anthropic_version("2023-13-01"));
  EXPECT_TRUE(check_anthropic_version("latest"));
  const auto err = check_anthropic_version("2023-06-1x");
  ASSERT_TRUE(err);
  EXPECT_EQ(err->status, 400);
  EXPECT_EQ(err->param, "anthropic-version");
  const auto long_one = check_anthropic_version(std::string(5000, 'x'));
  ASSERT_TRUE(long_one);
  EXPECT_LT(long_one->message.size(), 300u) << "a long header is quoted as a short prefix";
}

}  // namespace
