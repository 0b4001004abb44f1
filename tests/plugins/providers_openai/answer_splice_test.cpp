// map_response's fast path (answer_splice.cpp): an ordinary chat.completion is
// relayed byte for byte but for its "model" value; every body it does not
// take gets the same answer from the DOM path it would have got before.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace openai_test {
namespace {

// What the DOM path makes of `wire`: the alias served, request_id dropped.
Json mapped(const std::string& wire) {
  Json expected = Json::parse(wire);
  expected["model"] = "test-alias";
  expected.erase("request_id");
  return expected;
}

void parse_ok(const std::string& wire, Recorder& out) {
  Provider p;
  EXPECT_EQ(p.parse(CallContext{}, 200, wire, out), MGW_OK);
  EXPECT_FALSE(out.rec.error.has_value()) << wire;
}

TEST(AnswerSplice, AnOrdinaryAnswerKeepsTheVendorsBytesButTheModel) {
  // Pretty-printed, an escaped character and a float as the vendor wrote them:
  // a DOM round trip would have rewritten all three.
  const std::string wire =
      "\n{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\",\n  \"model\": "
      "\"gpt-4o-2024-08-06\",\n"
      "  \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": \"caf\\u00e9 \\/ "
      "1.50\"},"
      " \"logprobs\": null, \"finish_reason\": \"stop\"}],\n  \"temperature\": 1.0e0,\n"
      "  \"usage\": {\"prompt_tokens\": 19, \"completion_tokens\": 10, \"total_tokens\": 29,"
      " \"prompt_tokens_details\": {\"cached_tokens\": 4}}\n}\n";
  Recorder out;
  parse_ok(wire, out);
  std::string expected = wire.substr(1, wire.size() - 2);  // the whitespace around the object goes
  const std::string vendor_model = "\"gpt-4o-2024-08-06\"";
  expected.replace(expected.find(vendor_model), vendor_model.size(), "\"test-alias\"");
  EXPECT_EQ(out.rec.body, expected);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 19);
  EXPECT_EQ(out.rec.usage->completion_tokens, 10);
  EXPECT_EQ(out.rec.usage->total_tokens, 29);
  EXPECT_EQ(out.rec.usage->cached_prompt_tokens, 4);
  EXPECT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
}

TEST(AnswerSplice, TheTotalIsTheSumAndCachedIsCappedAsOnTheDomPath) {
  Recorder out;
  parse_ok(R"({"model":"m","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5,)"
           R"("prompt_tokens_details":{"cached_tokens":70}}})",
           out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->total_tokens, 12);
  EXPECT_EQ(out.rec.usage->cached_prompt_tokens, 7);
}

// Bodies the fast path leaves alone: the answer is the DOM path's, so no
// vendor model name and no vendor request_id ever gets through.
TEST(AnswerSplice, UnusualBodiesGetTheDomPathsAnswer) {
  const std::string usage = R"("usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5})";
  const std::string choices = R"("choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}])";
  for (const std::string& wire : {
           // An escaped name that reads "model".
           "{\"mod\\u0065l\":\"vendor-model\"," + choices + "," + usage + "}",
           // "model" twice: a DOM keeps the last.
           "{\"model\":\"vendor-model\",\"model\":\"vendor-model-2\"," + choices + "," + usage + "}",
           // A request_id to drop.
           "{\"model\":\"vendor-model\",\"request_id\":\"vendor-req\"," + choices + "," + usage + "}",
           // "error": null is no error.
           "{\"model\":\"vendor-model\",\"error\":null," + choices + "," + usage + "}",
           // Counts that are not plain integers.
           "{\"model\":\"vendor-model\"," + choices +
               R"(,"usage":{"prompt_tokens":3.0,"completion_tokens":2,"total_tokens":"5"}})",
           // No model at all.
           "{" + choices + "," + usage + "}",
       }) {
    Recorder out;
    parse_ok(wire, out);
    const Json body = Json::parse(out.rec.body);
    EXPECT_EQ(body, mapped(wire)) << wire;
    EXPECT_EQ(out.rec.body.find("vendor-model"), std::string::npos) << out.rec.body;
    EXPECT_EQ(out.rec.body.find("vendor-req"), std::string::npos) << out.rec.body;
  }
}

TEST(AnswerSplice, WithoutUsageTheEstimateIsAddedAsBefore) {
  Recorder out;
  parse_ok(R"({"model":"m","choices":[{"index":0,"message":{"content":"abcdefgh"}}]})", out);
  const Json body = Json::parse(out.rec.body);
  ASSERT_TRUE(body.contains("usage"));
  EXPECT_EQ(body["usage"]["completion_tokens"], 2);
}

TEST(AnswerSplice, BrokenJsonIsStillRefusedWithoutEchoingIt) {
  Provider p;
  for (const std::string& wire : {std::string(R"({"model":"m","choices":[],"usage":{}} trailing)"),
                                  std::string(R"({"model":"m","choices":[],"usage":{"a":"\x01"}})"),
                                  std::string("{\"model\":\"m\xff\",\"choices\":[],\"usage\":{}}")}) {
    Recorder out;
    p.parse(CallContext{}, 200, wire, out);
    ASSERT_TRUE(out.rec.error.has_value()) << wire;
    EXPECT_EQ(out.rec.error->message.find("trailing"), std::string::npos);
  }
}

// The Responses API's answer (operation "responses") takes the same fast path.
CallContext responses_answer_call() {
  CallContext c;
  c.operation = MGW_OPERATION_RESPONSES;
  return c;
}

TEST(AnswerSplice, AnOrdinaryResponseKeepsTheVendorsBytesButTheModel) {
  const std::string wire =
      "{\"id\": \"resp_1\", \"object\": \"response\", \"status\": \"completed\", \"error\": null,\n"
      " \"model\": \"gpt-4o-2024-08-06\", \"output\": [{\"type\": \"message\", \"content\": [{\"type\":"
      " \"output_text\", \"text\": \"caf\\u00e9\"}]}],\n \"usage\": {\"input_tokens\": 11, "
      "\"output_tokens\": 3,"
      " \"total_tokens\": 14, \"input_tokens_details\": {\"cached_tokens\": 2}}}";
  Provider p;
  Recorder out;
  ASSERT_EQ(p.parse(responses_answer_call(), 200, wire, out), MGW_OK);
  ASSERT_FALSE(out.rec.error.has_value());
  std::string expected = wire;
  const std::string vendor_model = "\"gpt-4o-2024-08-06\"";
  expected.replace(expected.find(vendor_model), vendor_model.size(), "\"test-alias\"");
  EXPECT_EQ(out.rec.body, expected);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 11);
  EXPECT_EQ(out.rec.usage->completion_tokens, 3);
  EXPECT_EQ(out.rec.usage->total_tokens, 14);
  EXPECT_EQ(out.rec.usage->cached_prompt_tokens, 2);
}

TEST(AnswerSplice, AFailedOrForeignResponseIsStillRefused) {
  const std::string usage = R"("usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2})";
  for (const std::string& wire : {
           R"({"object":"response","status":"failed","model":"m",)" + usage + "}",
           R"({"object":"response","status":"fail\u0065d","model":"m",)" + usage + "}",
           R"({"object":"chat.completion","model":"m","choices":[],)" + usage + "}",
       }) {
    Provider p;
    Recorder out;
    p.parse(responses_answer_call(), 200, wire, out);
    EXPECT_TRUE(out.rec.error.has_value()) << wire;
  }
}

}  // namespace
}  // namespace openai_test
