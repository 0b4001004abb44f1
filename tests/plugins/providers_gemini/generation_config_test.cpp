// Sampling, output and tool fields → generationConfig, tools, toolConfig.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace gemini_test {
namespace {

// The body Gemini gets for a request with `fields` added to one user message.
Json with_fields(std::string_view fields, const CallContext& call = CallContext{}) {
  return gemini_body(R"({"model":"m","messages":[{"role":"user","content":"Hi"}])" +
                         (fields.empty() ? std::string() : "," + std::string(fields)) + "}",
                     call);
}

mgw::testing::RecordedError refused_fields(std::string_view fields) {
  return refused(R"({"model":"m","messages":[{"role":"user","content":"Hi"}],)" + std::string(fields) + "}");
}

TEST(GenerationConfig, MapsEverySamplingField) {
  const Json body = with_fields(R"("temperature": 0.7, "top_p": 0.9, "max_tokens": 256, "n": 2,
    "seed": 12345, "presence_penalty": 0.5, "frequency_penalty": -0.25, "stop": ["END", "###"])");
  EXPECT_EQ(body["generationConfig"], Json::parse(R"({"temperature": 0.7, "topP": 0.9, "maxOutputTokens": 256,
    "stopSequences": ["END", "###"], "candidateCount": 2, "seed": 12345, "presencePenalty": 0.5,
    "frequencyPenalty": -0.25})"));
}

TEST(GenerationConfig, IsOmittedWhenNothingApplies) {
  EXPECT_FALSE(with_fields("").contains("generationConfig"));
  EXPECT_FALSE(with_fields(R"("temperature": null, "stop": null, "response_format": {"type": "text"})")
                   .contains("generationConfig"));
}

TEST(GenerationConfig, MaxCompletionTokensIsMaxOutputTokens) {
  EXPECT_EQ(with_fields(R"("max_completion_tokens": 100)")["generationConfig"]["maxOutputTokens"], 100);
  // The newer name wins when a client sends both.
  EXPECT_EQ(
      with_fields(R"("max_tokens": 50, "max_completion_tokens": 100)")["generationConfig"]["maxOutputTokens"],
      100);
}

TEST(GenerationConfig, UsesTheCatalogDefaultWhenTheClientSetsNoMaximum) {
  CallContext call;
  call.default_max_tokens = 8192;
  EXPECT_EQ(with_fields("", call)["generationConfig"], Json::parse(R"({"maxOutputTokens": 8192})"));
  EXPECT_EQ(with_fields(R"("max_tokens": 64)", call)["generationConfig"]["maxOutputTokens"], 64);
}

TEST(GenerationConfig, OmitsTheMaximumWhenTheCatalogSetsNone) {
  CallContext call;
  call.default_max_tokens = 0;
  EXPECT_FALSE(with_fields(R"("temperature": 1)", call)["generationConfig"].contains("maxOutputTokens"));
}

TEST(GenerationConfig, AStopStringIsAOneElementList) {
  EXPECT_EQ(with_fields(R"("stop": "\n\n")")["generationConfig"]["stopSequences"],
            Json::parse(R"(["\n\n"])"));
}

TEST(GenerationConfig, RefusesValuesOfTheWrongType) {
  EXPECT_EQ(refused_fields(R"("temperature": "hot")").param, "temperature");
  EXPECT_EQ(refused_fields(R"("top_p": [1])").param, "top_p");
  EXPECT_EQ(refused_fields(R"("max_tokens": 10.5)").param, "max_tokens");
  EXPECT_EQ(refused_fields(R"("max_completion_tokens": "10")").param, "max_completion_tokens");
  EXPECT_EQ(refused_fields(R"("n": true)").param, "n");
  EXPECT_EQ(refused_fields(R"("seed": "1")").param, "seed");
  EXPECT_EQ(refused_fields(R"("presence_penalty": {})").param, "presence_penalty");
  EXPECT_EQ(refused_fields(R"("frequency_penalty": "x")").param, "frequency_penalty");
  EXPECT_EQ(refused_fields(R"("stop": ["a", 1])").param, "stop");
  EXPECT_EQ(refused_fields(R"("stop": 5)").param, "stop");
}

TEST(GenerationConfig, JsonObjectFormatAsksForJson) {
  EXPECT_EQ(with_fields(R"("response_format": {"type": "json_object"})")["generationConfig"],
            Json::parse(R"({"responseMimeType": "application/json"})"));
}

TEST(GenerationConfig, JsonSchemaFormatPassesTheSchemaAsGiven) {
  const Json body = with_fields(R"("response_format": {"type": "json_schema", "json_schema": {
    "name": "city", "strict": true,
    "schema": {"type": "object", "properties": {"name": {"type": "string"}, "pop": {"type": "integer"}},
               "required": ["name"]}}})");
  EXPECT_EQ(body["generationConfig"], Json::parse(R"({"responseMimeType": "application/json",
    "responseSchema": {"type": "object", "properties": {"name": {"type": "string"}, "pop": {"type": "integer"}},
                       "required": ["name"]}})"));
}

TEST(GenerationConfig, JsonSchemaFormatWithoutASchemaStillAsksForJson) {
  EXPECT_EQ(
      with_fields(
          R"("response_format": {"type": "json_schema", "json_schema": {"name": "x"}})")["generationConfig"],
      Json::parse(R"({"responseMimeType": "application/json"})"));
}

TEST(GenerationConfig, AnUnknownFormatIsRefused) {
  EXPECT_EQ(refused_fields(R"("response_format": {"type": "yaml"})").param, "response_format.type");
}

TEST(Tools, FunctionToolsBecomeFunctionDeclarations) {
  const Json body = with_fields(R"("tools": [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
      "strict": true}},
    {"type": "function", "function": {"name": "list_cities"}}])");
  EXPECT_EQ(body["tools"], Json::parse(R"([{"functionDeclarations": [
    {"name": "get_weather", "description": "Current weather",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    {"name": "list_cities"}]}])"));
  EXPECT_FALSE(body.contains("toolConfig"));
}

TEST(Tools, AnEmptyListSendsNoTools) {
  EXPECT_FALSE(with_fields(R"("tools": [])").contains("tools"));
}

TEST(Tools, OtherToolTypesAndNamelessFunctionsAreRefused) {
  EXPECT_EQ(refused_fields(R"("tools": [{"type": "function", "function": {"name": "a"}},
                                        {"type": "web_search_preview"}])")
                .param,
            "tools[1].type");
  EXPECT_EQ(refused_fields(R"("tools": [{"type": "function", "function": {"description": "x"}}])").param,
            "tools[0].function.name");
  EXPECT_EQ(refused_fields(R"("tools": {"type": "function"})").param, "tools");
}

TEST(ToolChoice, MapsEachModeToAFunctionCallingMode) {
  const std::string tool = R"("tools": [{"type": "function", "function": {"name": "get_weather"}}], )";
  EXPECT_EQ(with_fields(tool + R"("tool_choice": "auto")")["toolConfig"],
            Json::parse(R"({"functionCallingConfig": {"mode": "AUTO"}})"));
  EXPECT_EQ(with_fields(tool + R"("tool_choice": "required")")["toolConfig"],
            Json::parse(R"({"functionCallingConfig": {"mode": "ANY"}})"));
  EXPECT_EQ(with_fields(tool + R"("tool_choice": "none")")["toolConfig"],
            Json::parse(R"({"functionCallingConfig": {"mode": "NONE"}})"));
  EXPECT_EQ(
      with_fields(
          tool + R"("tool_choice": {"type": "function", "function": {"name": "get_weather"}})")["toolConfig"],
      Json::parse(R"({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}})"));
}

TEST(ToolChoice, AnUnknownChoiceIsRefused) {
  EXPECT_EQ(refused_fields(R"("tool_choice": "sometimes")").param, "tool_choice");
  EXPECT_EQ(refused_fields(R"("tool_choice": {"type": "function", "function": {}})").param, "tool_choice");
  EXPECT_EQ(refused_fields(R"("tool_choice": {"type": "allowed_tools"})").param, "tool_choice");
}

}  // namespace
}  // namespace gemini_test
