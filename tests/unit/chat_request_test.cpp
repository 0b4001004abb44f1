#include "chat/chat_request.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using modelgw::chat::ChatRequest;
using modelgw::chat::parse_chat_request;
using modelgw::errors::ApiError;

ApiError chat_error_of(std::string_view body) {
  auto r = parse_chat_request(body);
  if (auto* e = std::get_if<ApiError>(&r)) return *e;
  return ApiError{200, "none", "", ""};
}

void expect_error(std::string_view body, const std::string& code, const std::string& param) {
  ApiError e = chat_error_of(body);
  EXPECT_EQ(e.status, 400) << body;
  EXPECT_EQ(e.code, code) << body;
  EXPECT_EQ(e.param, param) << body;
  EXPECT_FALSE(e.message.empty());
}

TEST(ChatRequest, AcceptsAValidRequest) {
  auto r = parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true})");
  ASSERT_TRUE(std::holds_alternative<ChatRequest>(r));
  EXPECT_EQ(std::get<ChatRequest>(r).model, "m");
  EXPECT_TRUE(std::get<ChatRequest>(r).stream);
  auto plain = parse_chat_request(
      R"({"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[]},{"role":"user","content":[{"type":"text","text":"x"}]}]})");
  ASSERT_TRUE(std::holds_alternative<ChatRequest>(plain));
  EXPECT_FALSE(std::get<ChatRequest>(plain).stream);
}

TEST(ChatRequest, MalformedBodies) {
  expect_error("", "invalid_json", "");
  expect_error("   \n", "invalid_json", "");
  expect_error("{", "invalid_json", "");
  expect_error("[1,2]", "invalid_json", "");
  expect_error("\"text\"", "invalid_json", "");
  expect_error("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}",
               "invalid_json", "");
  EXPECT_NE(chat_error_of("{\"model\": }").message.find("byte"), std::string::npos);
}

TEST(ChatRequest, RequiredFieldsAndTypes) {
  expect_error(R"({"messages":[]})", "missing_required_field", "model");
  expect_error(R"({"model":null,"messages":[]})", "missing_required_field", "model");
  expect_error(R"({"model":1,"messages":[]})", "invalid_parameter", "model");
  expect_error(R"({"model":"m"})", "missing_required_field", "messages");
  expect_error(R"({"model":"m","messages":"hi"})", "invalid_parameter", "messages");
  expect_error(R"({"model":"m","messages":[]})", "invalid_parameter", "messages");
  expect_error(R"({"model":"m","messages":[1]})", "invalid_parameter", "messages[0]");
  expect_error(R"({"model":"m","messages":[{"content":"x"}]})", "missing_required_field", "messages[0].role");
  expect_error(R"({"model":"m","messages":[{"role":"user"},{"role":"robot"}]})", "invalid_parameter",
               "messages[1].role");
  expect_error(R"({"model":"m","messages":[{"role":5}]})", "invalid_parameter", "messages[0].role");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":5}]})", "invalid_parameter",
               "messages[0].content");
  expect_error(R"({"model":"m","messages":[{"role":"user"}],"stream":"yes"})", "invalid_parameter", "stream");
}

TEST(ChatRequest, RefusesDeepNestingBeforeParsing) {
  std::string deep = R"({"model":"m","messages":[{"role":"user","content":"x"}],"x":)";
  for (int i = 0; i < 100000; ++i) deep += '[';
  for (int i = 0; i < 100000; ++i) deep += ']';
  deep += '}';
  ApiError e = chat_error_of(deep);
  EXPECT_EQ(e.code, "invalid_json");
  EXPECT_NE(e.message.find("deeper than 64"), std::string::npos);
}

// nlohmann reports a number out of double's range as out_of_range (406), not
// as a parse error: it must still be a 400 that names the parameter.
TEST(ChatRequest, NumberOutOfRangeIs400NamingTheParameter) {
  const std::string head = R"({"model":"m","messages":[{"role":"user","content":"hi"}])";
  expect_error(head + R"(,"temperature":1e999})", "invalid_parameter", "temperature");
  expect_error(head + R"(,"temperature":-1e999})", "invalid_parameter", "temperature");
  expect_error(head + ",\"seed\":1" + std::string(400, '0') + "}", "invalid_parameter", "seed");
  expect_error(
      R"({"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"text"},{"x":[1,2,1e400]}]}]})",
      "invalid_parameter", "messages[1].content[1].x[2]");
  expect_error(head + R"(,"logit_bias":{"50256":-1E+999}})", "invalid_parameter", "logit_bias.50256");
  expect_error(head + R"(,"response_format":{"a":{"b":[]},"c":[{},[],1e999]}})", "invalid_parameter",
               "response_format.c[2]");
  ApiError e = chat_error_of(head + R"(,"temperature":1e999})");
  EXPECT_NE(e.message.find("'temperature'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("1e999"), std::string::npos) << e.message;
  // The whole body a number: no parameter to name.
  expect_error("1e999", "invalid_parameter", "");
  // Tiny numbers round to zero and are fine.
  EXPECT_TRUE(std::holds_alternative<ChatRequest>(parse_chat_request(head + R"(,"temperature":1e-999})")));
}

TEST(ChatRequest, NumberOutOfRangeAfterASyntaxErrorIsASyntaxError) {
  // The first problem in the text decides.
  expect_error(R"({"model":"m",,"temperature":1e999})", "invalid_json", "");
}

TEST(ChatRequest, HugeMemberNameAndLiteralAreQuotedBounded) {
  const std::string name(4 << 20, 'k');
  ApiError e =
      chat_error_of(R"({"model":"m","messages":[],")" + name + R"(":)" + std::string(1 << 20, '9') + "}");
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_LT(e.message.size(), 1024u);
  EXPECT_LT(e.param.size(), 1024u);
  EXPECT_EQ(e.param.substr(0, 8), "kkkkkkkk");
}

TEST(ChatRequest, UnknownRoleIsQuotedBounded) {
  ApiError e = chat_error_of(R"({"model":"m","messages":[{"role":")" + std::string(1 << 20, 'r') + "\"}]}");
  EXPECT_EQ(e.param, "messages[0].role");
  EXPECT_LT(e.message.size(), 1024u);
  e = chat_error_of(R"({"model":"m","messages":[{"role":"us\"er"}]})");
  EXPECT_NE(e.message.find("us\\x22er"), std::string::npos) << e.message;
}

TEST(ChatRequest, NIsAPositiveCountOfChoices) {
  auto one = parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(std::get<ChatRequest>(one).choices, 1);
  auto three = parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"n":3})");
  EXPECT_EQ(std::get<ChatRequest>(three).choices, 3);
  auto null = parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"n":null})");
  EXPECT_EQ(std::get<ChatRequest>(null).choices, 1);
  for (const char* n : {"0", "-2", "1.5", "\"2\"", "true", "18446744073709551615"}) {
    const auto e = chat_error_of(
        std::string(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"n":)") + n + "}");
    EXPECT_EQ(e.status, 400) << n;
    EXPECT_EQ(e.param, "n") << n;
  }
}

}  // namespace

namespace {

// README ("Errors"): a wrong type or value is 400 invalid_parameter from the
// gateway itself, as OpenAI answers it, not whatever a vendor makes of it.
TEST(ChatRequest, KnownParametersOfTheWrongTypeOrOutsideOpenAisRangeAre400) {
  const std::string head = R"({"model":"m","messages":[{"role":"user","content":"hi"}])";
  for (const auto& [member, param] : std::vector<std::pair<std::string, std::string>>{
           {R"("temperature":"hot")", "temperature"},
           {R"("temperature":2.5)", "temperature"},
           {R"("temperature":-0.1)", "temperature"},
           {R"("top_p":true)", "top_p"},
           {R"("top_p":1.01)", "top_p"},
           {R"("presence_penalty":"x")", "presence_penalty"},
           {R"("frequency_penalty":-2.5)", "frequency_penalty"},
           {R"("seed":1.5)", "seed"},
           {R"("seed":"7")", "seed"},
           {R"("logprobs":"yes")", "logprobs"},
           {R"("top_logprobs":21)", "top_logprobs"},
           {R"("top_logprobs":-1)", "top_logprobs"},
           {R"("stop":7)", "stop"},
           {R"("stop":["a",1])", "stop"},
           {R"("user":42)", "user"},
           {R"("parallel_tool_calls":1)", "parallel_tool_calls"},
           {R"("stream_options":true)", "stream_options"},
           {R"("response_format":"json")", "response_format"},
           {R"("tools":{})", "tools"},
           {R"("tool_choice":3)", "tool_choice"},
           {R"("logit_bias":[1])", "logit_bias"},
           {R"("metadata":"m")", "metadata"},
       }) {
    expect_error(head + "," + member + "}", "invalid_parameter", param);
  }
  ApiError e = chat_error_of(head + R"(,"temperature":"hot"})");
  EXPECT_NE(e.message.find("'temperature' must be a number"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("hot"), std::string::npos) << "a type error names the type, not the value";
}

TEST(ChatRequest, KnownParametersOfTheRightTypeOrNullAreAccepted) {
  const std::string head = R"({"model":"m","messages":[{"role":"user","content":"hi"}])";
  for (const std::string member : {R"("temperature":0)",
                                   R"("temperature":2)",
                                   R"("temperature":null)",
                                   R"("top_p":0.5)",
                                   R"("presence_penalty":-2)",
                                   R"("frequency_penalty":2)",
                                   R"("seed":-42)",
                                   R"("logprobs":true)",
                                   R"("top_logprobs":0)",
                                   R"("top_logprobs":20)",
                                   R"("stop":"\n")",
                                   R"("stop":["a","b","c","d","e"])",
                                   R"("stop":null)",
                                   R"("user":"u1")",
                                   R"("parallel_tool_calls":false)",
                                   R"("stream_options":{"include_usage":true})",
                                   R"("response_format":{"type":"json_object"})",
                                   R"("tools":[])",
                                   R"("tool_choice":"auto")",
                                   R"("tool_choice":{"type":"function"})",
                                   R"("logit_bias":{"50256":-100})",
                                   R"("metadata":{"k":"v"})",
                                   R"("temperature":1e-999)"}) {
    EXPECT_TRUE(std::holds_alternative<ChatRequest>(parse_chat_request(head + "," + member + "}"))) << member;
  }
}

}  // namespace
