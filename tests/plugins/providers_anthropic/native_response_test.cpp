// Whole answers of the native operations (ABI 1.11): a Messages `message`
// relayed with the alias, its usage with the prompt cache's share, token
// counts, and the failures.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace anthropic_test {
namespace {

constexpr const char* kMessage =
    R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",)"
    R"("content":[{"type":"thinking","thinking":"Let me see.","signature":"EqQBCgIYAh=="},)"
    R"({"type":"text","text":"Hi!","citations":null}],"stop_reason":"end_turn","stop_sequence":null,)"
    R"("usage":{"input_tokens":10,"cache_creation_input_tokens":20,"cache_read_input_tokens":30,)"
    R"("output_tokens":5,"service_tier":"standard","x_ratio":1.50}})";

CallContext op_call(std::string_view op) {
  CallContext c;
  c.operation = std::string(op);
  return c;
}

struct Answer {
  mgw_status status = MGW_INTERNAL;
  std::vector<std::string> events;
  std::string body;
  std::optional<mgw_usage> usage;
  std::optional<mgw::testing::RecordedError> error;
};

Answer answer(std::string_view op, int status, std::string_view body,
              const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  static const Provider provider;
  Recorder out;
  Answer a;
  a.status = provider.parse(op_call(op), status, body, out, headers);
  a.events = out.events;
  a.body = out.rec.body;
  a.usage = out.rec.usage;
  a.error = out.rec.error;
  return a;
}

TEST(NativeMessagesResponse, RelaysTheMessageWithTheAliasAsItsModel) {
  const Answer a = answer(MGW_OPERATION_MESSAGES, 200, kMessage);
  ASSERT_EQ(a.events, (std::vector<std::string>{"usage", "body"}));
  std::string expected = kMessage;
  expected.replace(expected.find("claude-sonnet-4-5"), 17, "test-alias");
  EXPECT_EQ(a.body, expected);  // byte for byte: the signature, 1.50 and unknown members kept
}

TEST(NativeMessagesResponse, UsageCountsTheCacheAsPrompt) {
  const Answer a = answer(MGW_OPERATION_MESSAGES, 200, kMessage);
  ASSERT_TRUE(a.usage.has_value());
  EXPECT_EQ(a.usage->prompt_tokens, 60);
  EXPECT_EQ(a.usage->completion_tokens, 5);
  EXPECT_EQ(a.usage->total_tokens, 65);
  EXPECT_EQ(a.usage->cached_prompt_tokens, 30);
  EXPECT_EQ(a.usage->cache_write_prompt_tokens, 20);
}

TEST(NativeMessagesResponse, AMessageWithoutUsageGetsTheEstimate) {
  const Answer a = answer(
      MGW_OPERATION_MESSAGES, 200,
      R"({"type":"message","model":"m","request_id":"r","content":[{"type":"text","text":"12345678"}]})");
  ASSERT_EQ(a.events, (std::vector<std::string>{"usage", "body"}));
  EXPECT_EQ(a.usage->completion_tokens, 2);
  EXPECT_EQ(a.usage->cache_write_prompt_tokens, 0);
  EXPECT_EQ(
      Json::parse(a.body),
      Json::parse(R"({"type":"message","model":"test-alias","content":[{"type":"text","text":"12345678"}],)"
                  R"("usage":{"input_tokens":0,"output_tokens":2}})"));
}

// An ordinary message is relayed by a scan, anything else through the DOM:
// both must give the same answer, so whitespace, a request_id or a missing
// model change nothing, and a count the scan would read otherwise than the
// DOM (negative, a float, an escaped name) is read as the DOM reads it.
TEST(NativeMessagesResponse, TheScanAndTheDomGiveTheSameAnswer) {
  std::string expected = kMessage;
  expected.replace(expected.find("claude-sonnet-4-5"), 17, "test-alias");
  struct Case {
    std::string label, body;
    int64_t prompt, completion, cached, written;
  };
  std::string pretty = kMessage;
  for (const char* sep : {",\"", ":{", ":["}) {
    for (auto at = pretty.find(sep); at != std::string::npos; at = pretty.find(sep, at + 4)) {
      pretty.insert(at + 1, "\n  ");
    }
  }
  std::string no_model = kMessage;
  no_model.erase(no_model.find(R"("model")"), std::string(R"("model":"claude-sonnet-4-5",)").size());
  const auto with_usage = [](std::string_view usage) {
    std::string body = kMessage;
    const auto at = body.find(R"("usage":)") + 8;
    body.replace(at, body.size() - 1 - at, usage);
    return body;
  };
  const Case cases[] = {
      {"as sent", kMessage, 60, 5, 30, 20},
      {"with whitespace between members", " " + pretty + "\n", 60, 5, 30, 20},
      {"with the vendor's request_id", R"({"request_id":"req_v",)" + std::string(kMessage).substr(1), 60, 5,
       30, 20},
      {"without a model", no_model, 60, 5, 30, 20},
      {"a negative count", with_usage(R"({"input_tokens":10,"output_tokens":-3})"), 10, 0, 0, 0},
      {"a float count", with_usage(R"({"input_tokens":10,"output_tokens":5.0})"), 10, 4, 0, 0},
      {"an escaped count name",
       with_usage(R"({"input_tokens":10,"output_tokens":5,"\u0063ache_read_input_tokens":30})"), 40, 5, 30,
       0},
  };
  for (const Case& c : cases) {
    const Answer a = answer(MGW_OPERATION_MESSAGES, 200, c.body);
    ASSERT_EQ(a.events, (std::vector<std::string>{"usage", "body"})) << c.label;
    EXPECT_EQ(a.usage->prompt_tokens, c.prompt) << c.label;
    EXPECT_EQ(a.usage->completion_tokens, c.completion) << c.label;
    EXPECT_EQ(a.usage->cached_prompt_tokens, c.cached) << c.label;
    EXPECT_EQ(a.usage->cache_write_prompt_tokens, c.written) << c.label;
    Json want = Json::parse(c.body);
    want.erase("request_id");
    want["model"] = "test-alias";
    const Json got = Json::parse(a.body);
    EXPECT_EQ(got, want) << c.label << ": " << a.body;
    EXPECT_FALSE(got.contains("request_id")) << c.label;
  }
  // Values are relayed as written; the whitespace between top-level members goes.
  std::string spaced = kMessage;
  spaced.replace(0, 1, "{\n  ");
  spaced.replace(spaced.find(R"(,"stop_reason")"), 1, " ,\n  ");
  spaced.replace(spaced.find(R"("usage":)") + 7, 1, " : ");
  EXPECT_EQ(answer(MGW_OPERATION_MESSAGES, 200, spaced + " ").body, expected);
}

TEST(NativeMessagesResponse, ErrorStatusesGoThroughTheChatPathsMapper) {
  Answer a = answer(MGW_OPERATION_MESSAGES, 529,
                    R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  ASSERT_EQ(a.events, std::vector<std::string>{"error"});
  EXPECT_EQ(a.error->http_status, 502);
  EXPECT_EQ(a.error->code, "provider_failed");
  EXPECT_TRUE(a.error->retryable);
  a = answer(MGW_OPERATION_MESSAGES, 400,
             R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too big"}})");
  EXPECT_EQ(a.error->http_status, 400);
  EXPECT_EQ(a.error->code, "invalid_parameter");
  EXPECT_EQ(a.error->param, "max_tokens");
  a = answer(MGW_OPERATION_MESSAGES, 429, "{}", {{"retry-after", "3"}});
  EXPECT_EQ(a.error->http_status, 429);
  EXPECT_EQ(a.error->retry_after_ms, 3000);
}

TEST(NativeMessagesResponse, ASuccessThatIsNotAMessageIsProviderFailed) {
  for (const char* body : {"", "[1]", R"({"type":"completion","content":[]})", R"({"type":"message"})",
                           "{\"type\":\"message\",\"content\":[" /* cut */}) {
    const Answer a = answer(MGW_OPERATION_MESSAGES, 200, body);
    ASSERT_EQ(a.events, std::vector<std::string>{"error"}) << body;
    EXPECT_EQ(a.error->http_status, 502) << body;
    EXPECT_EQ(a.error->code, "provider_failed") << body;
  }
  const Answer e = answer(MGW_OPERATION_MESSAGES, 200,
                          R"({"type":"error","error":{"type":"api_error","message":"boom"}})");
  EXPECT_EQ(e.error->message, "upstream provider returned an error with HTTP 200: boom");
}

TEST(NativeMessagesResponse, TheChatPathReportsCacheWritesToo) {
  const Answer a = answer(MGW_OPERATION_CHAT, 200, kMessage);
  ASSERT_TRUE(a.usage.has_value());
  EXPECT_EQ(a.usage->prompt_tokens, 60);
  EXPECT_EQ(a.usage->cached_prompt_tokens, 30);
  EXPECT_EQ(a.usage->cache_write_prompt_tokens, 20);
  EXPECT_EQ(Json::parse(a.body)["object"], "chat.completion");
}

TEST(NativeCountTokensResponse, RelaysTheCountWithoutUsage) {
  const Answer a = answer(MGW_OPERATION_COUNT_TOKENS, 200, R"({ "input_tokens" : 2095, "extra": true })");
  EXPECT_EQ(a.events, std::vector<std::string>{"body"});
  EXPECT_EQ(a.body, R"({"input_tokens":2095})");
}

TEST(NativeCountTokensResponse, FailuresAreMappedAsForMessages) {
  for (const char* body : {R"({"tokens":3})", R"({"input_tokens":"3"})", "x"}) {
    const Answer a = answer(MGW_OPERATION_COUNT_TOKENS, 200, body);
    ASSERT_EQ(a.events, std::vector<std::string>{"error"}) << body;
    EXPECT_EQ(a.error->http_status, 502) << body;
  }
  const Answer a = answer(
      MGW_OPERATION_COUNT_TOKENS, 400,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Extra inputs are not permitted"}})");
  EXPECT_EQ(a.error->http_status, 400);
  EXPECT_EQ(a.error->code, "invalid_parameter");
  EXPECT_EQ(answer(MGW_OPERATION_COUNT_TOKENS, 401, "{}").error->http_status, 502);
}

}  // namespace
}  // namespace anthropic_test
