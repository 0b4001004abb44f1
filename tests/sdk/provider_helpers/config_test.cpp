// modelgw/provider/config.hpp: string members bound for headers and the
// operator's extra headers, refused at start-up when unsafe.
#include <modelgw/provider/config.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace mgw::provider;

Json cfg(std::string_view text) {
  std::string error;
  auto j = parse_config_object(text, error);
  EXPECT_TRUE(j.has_value()) << error;
  return j ? *j : Json::object();
}

TEST(Config, TheBlockMustBeAJsonObject) {
  std::string error;
  EXPECT_FALSE(parse_config_object("api_key: x", error).has_value());
  EXPECT_EQ(error, "provider config: not valid JSON");
  EXPECT_FALSE(parse_config_object("[1]", error).has_value());
  EXPECT_EQ(error, "provider config: must be a JSON object");
}

TEST(Config, StringMembersAreOptionalTypedAndSafeInAHeader) {
  std::string out = "default";
  std::string error;
  EXPECT_TRUE(read_header_string(cfg(R"({"v":null})"), "v", out, error));
  EXPECT_EQ(out, "default");  // null is absent
  EXPECT_TRUE(read_header_string(cfg(R"({"v":"2023-06-01"})"), "v", out, error));
  EXPECT_EQ(out, "2023-06-01");
  EXPECT_FALSE(read_header_string(cfg(R"({"v":5})"), "v", out, error));
  EXPECT_EQ(error, "v: must be a string");
  EXPECT_FALSE(read_header_string(cfg(R"({"v":"a\r\nX-Injected: 1"})"), "v", out, error));
  EXPECT_EQ(error, "v: must not contain control characters such as line breaks");
  EXPECT_EQ(error.find("Injected"), std::string::npos);  // the value is never quoted
}

TEST(Config, AnApiKeyWithSurroundingWhitespaceIsRefused) {
  std::string key;
  std::string error;
  EXPECT_FALSE(read_api_key(cfg(R"({"api_key":"sk-abc "})"), key, error));
  EXPECT_EQ(error, "api_key: must not start or end with whitespace");
  EXPECT_FALSE(read_api_key(cfg(R"({"api_key":"\tsk-abc"})"), key, error));
  EXPECT_TRUE(read_api_key(cfg(R"({"api_key":"sk-abc"})"), key, error));
  EXPECT_EQ(key, "sk-abc");
}

TEST(Config, ExtraHeadersReplaceBuiltInOnesOfTheSameName) {
  std::vector<HeaderLine> headers = {{"Authorization", "Bearer k"}, {"Content-Type", "application/json"}};
  bool accept = false;
  std::string error;
  ASSERT_TRUE(read_extra_headers(
      cfg(R"({"headers":{"authorization":"Basic x","X-Team":"a","ACCEPT":"*/*"}})"), headers, accept, error))
      << error;
  ASSERT_EQ(headers.size(), 4u);
  EXPECT_EQ(headers[0].name, "Authorization");
  EXPECT_EQ(headers[0].value, "Basic x");
  EXPECT_EQ(headers[2].name, "X-Team");
  EXPECT_TRUE(accept);
  EXPECT_TRUE(read_extra_headers(cfg(R"({"headers":null})"), headers, accept, error));
}

TEST(Config, UnsafeExtraHeadersAreRefusedNamingTheKeyOnly) {
  struct Case {
    const char* config;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"headers":[]})", "headers: must be an object of header names to string values"},
           {R"({"headers":{"Bad Name":"x"}})", "headers: 'Bad Name' is not a valid header name"},
           {R"({"headers":{"host":"x"}})", "headers.host: is set by the gateway and cannot be configured"},
           {R"({"headers":{"Transfer-Encoding":"x"}})",
            "headers.Transfer-Encoding: is set by the gateway and cannot be configured"},
           {R"({"headers":{"X-A":1}})", "headers.X-A: must be a string"},
           {R"({"headers":{"X-A":"v\u0000"}})",
            "headers.X-A: must not contain control characters such as line breaks"},
       }) {
    std::vector<HeaderLine> headers;
    bool accept = false;
    std::string error;
    EXPECT_FALSE(read_extra_headers(cfg(c.config), headers, accept, error)) << c.config;
    EXPECT_EQ(error, c.error);
  }
}

TEST(Config, ALongBadHeaderNameIsCut) {
  std::vector<HeaderLine> headers;
  bool accept = false;
  std::string error;
  const std::string name(200, ' ');
  EXPECT_FALSE(read_extra_headers(cfg(R"({"headers":{")" + name + R"(":"x"}})"), headers, accept, error));
  EXPECT_EQ(error, "headers: '" + std::string(64, ' ') + "' is not a valid header name");
}

}  // namespace
