// bound_chat_prompt: an upper bound on any byte-level tokenizer's count, so
// it must reach at least one token per UTF-8 byte of the text in every
// script, count images at their most, never read media bytes as text, and
// never throw on any shape of body.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "modelgw/tokenizer.h"

#include <string>

namespace {

using modelgw::tokenizer::bound_chat_prompt;
using modelgw::tokenizer::estimate_tokens;
using nlohmann::json;

json user(const std::string& text) {
  return {{"messages", json::array({{{"role", "user"}, {"content", text}}})}};
}

std::string times(const std::string& unit, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += unit;
  return out;
}

TEST(PromptBound, CoversOneTokenPerByteInEveryScript) {
  for (const std::string& text :
       {times("\u0645\u0631\u062d\u0628\u0627 ", 400), times("\u4f60\u597d\u4e16\u754c", 500),
        times("\U0001F600\u2764\uFE0F", 300), times("{\"k\":[1,{\"x\":null}]},", 100), times("q7#", 700)}) {
    const std::size_t bound = bound_chat_prompt(user(text));
    EXPECT_GE(bound, text.size() + 4) << "a byte-level tokenizer may count every byte";
    EXPECT_LT(bound, text.size() + 64) << "the bound adds framing, not a multiple";
    EXPECT_GT(bound, estimate_tokens(text)) << "the estimate errs low; the bound must not";
  }
}

TEST(PromptBound, CountsEveryMessageTheToolCallsAndTheToolDefinitions) {
  const json one = user("hello");
  json two = one;
  two["messages"].push_back(
      {{"role", "assistant"},
       {"content", nullptr},
       {"tool_calls", json::array({{{"id", "c1"},
                                    {"type", "function"},
                                    {"function", {{"name", "lookup"}, {"arguments", "{\"q\":\"x\"}"}}}}})}});
  EXPECT_GE(bound_chat_prompt(two), bound_chat_prompt(one) + std::string("lookup{\"q\":\"x\"}").size());
  json tools = one;
  tools["tools"] = json::array(
      {{{"type", "function"},
        {"function",
         {{"name", "lookup"}, {"parameters", {{"type", "object"}, {"properties", json::object()}}}}}}});
  EXPECT_GE(bound_chat_prompt(tools), bound_chat_prompt(one) + 1024) << "the tool-use preamble";
}

TEST(PromptBound, AnImageCountsItsMostNotItsBytes) {
  const std::string data = "data:image/png;base64," + std::string(200000, 'A');
  json body = {
      {"messages",
       json::array({{{"role", "user"},
                     {"content", json::array({{{"type", "text"}, {"text", "what is it"}},
                                              {{"type", "image_url"}, {"image_url", {{"url", data}}}}})}}})}};
  const std::size_t bound = bound_chat_prompt(body);
  EXPECT_GE(bound, 6400u);
  EXPECT_LT(bound, 7000u);
}

TEST(PromptBound, AnyShapeIsMeasuredWithoutThrowing) {
  EXPECT_EQ(bound_chat_prompt(json()), 0u);
  EXPECT_EQ(bound_chat_prompt(json::array()), 0u);
  EXPECT_GT(bound_chat_prompt(json::object()), 0u);
  EXPECT_NO_THROW(bound_chat_prompt(json{{"messages", 7}, {"tools", "x"}}));
  EXPECT_NO_THROW(bound_chat_prompt(json{{"messages", json::array({1, nullptr, json::array({true})})}}));
}

}  // namespace
