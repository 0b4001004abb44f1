// What OpenAI's published schema (openai/openai-openapi: the
// CreateChatCompletionResponse and CreateChatCompletionStreamResponse
// components) requires of a chat answer: the required members, their types,
// which may be null, and that an optional member, when present, has its
// type (system_fingerprint is a string, never null). Clients generated from
// the schema reject anything else, so every provider's answers must pass.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace it {

// A whole chat.completion body.
::testing::AssertionResult ConformsToChatCompletionSchema(const nlohmann::json& body);
// One chat.completion.chunk of a stream (the usage chunk included).
::testing::AssertionResult ConformsToChatCompletionChunkSchema(const nlohmann::json& chunk);

}  // namespace it
