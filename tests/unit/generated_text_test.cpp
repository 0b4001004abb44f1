// generated_text_bytes: the bytes of generated text in a compact
// chat.completion.chunk, read without parsing it.
#include "chat/generated_text.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using modelgw::chat::generated_text_bytes;

std::string chunk_with_delta(const std::string& delta) {
  return R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",)"
         R"("choices":[{"index":0,"delta":)" +
         delta + R"(,"finish_reason":null}]})";
}

TEST(GeneratedText, CountsContent) {
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":"Hello"})")), 5u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"role":"assistant","content":""})")), 0u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":"Paris is the capital."})")), 21u);
}

TEST(GeneratedText, CountsUtf8Bytes) {
  EXPECT_EQ(generated_text_bytes(chunk_with_delta("{\"content\":\"caf\xc3\xa9 \xe6\x97\xa5\"}")),
            9u);  // 3 + 2 + 1 + 3
}

TEST(GeneratedText, CountsArgumentsRefusalAndReasoning) {
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"refusal":"No."})")), 3u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"reasoning_content":"think"})")), 5u);
  EXPECT_EQ(
      generated_text_bytes(chunk_with_delta(
          R"({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]})")),
      8u);  // {"city":  -- the escaped quotes count once each
}

TEST(GeneratedText, SumsEveryStringInTheChunk) {
  const std::string chunk =
      R"({"choices":[{"index":0,"delta":{"reasoning_content":"abc","content":"de"}},)"
      R"({"index":1,"delta":{"content":"fgh","tool_calls":[{"function":{"arguments":"12"}},{"function":{"arguments":"345"}}]}}]})";
  EXPECT_EQ(generated_text_bytes(chunk), 3u + 2u + 3u + 2u + 3u);
}

// A Responses API event's text is its string delta (a provider serving that
// API natively); a chat chunk's delta is an object and counts only its texts.
TEST(GeneratedText, CountsAResponsesEventsDelta) {
  EXPECT_EQ(
      generated_text_bytes(
          R"({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"delta":"Hello"})"),
      5u);
  EXPECT_EQ(generated_text_bytes(R"({"type":"response.function_call_arguments.delta","delta":"{\"a\":1}"})"),
            7u);
  EXPECT_EQ(generated_text_bytes(R"({"type":"response.in_progress","response":{"id":"resp_1"}})"), 0u);
}

TEST(GeneratedText, NonTextMembersCountNothing) {
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"role":"assistant"})")), 0u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":null})")), 0u);
  EXPECT_EQ(generated_text_bytes(
                R"({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}})"),
            0u);
  EXPECT_EQ(
      generated_text_bytes(chunk_with_delta(
          R"({"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"lookup"}}]})")),
      0u);
  // The model name and other string members are not generated text.
  EXPECT_EQ(generated_text_bytes(R"({"model":"content","id":"arguments"})"), 0u);
  EXPECT_EQ(generated_text_bytes(""), 0u);
  EXPECT_EQ(generated_text_bytes("{}"), 0u);
}

TEST(GeneratedText, EscapesCountOnce) {
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":"a\nb"})")), 3u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":"\"q\""})")), 3u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":"back\\slash"})")), 10u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":"\\"})")), 1u);
  EXPECT_EQ(generated_text_bytes(chunk_with_delta(R"({"content":"\t\r\n\/\b\f"})")), 6u);
}

TEST(GeneratedText, AnEscapedBackslashBeforeTheClosingQuoteEndsTheString) {
  // "x\\" is x and one backslash; what follows is the next member, not text.
  EXPECT_EQ(generated_text_bytes(R"({"delta":{"content":"x\\","role":"assistant"}})"), 2u);
}

TEST(GeneratedText, EscapedKeyLookAlikesInsideStringsAreNotCounted) {
  // The text itself spells out a "content":"..." member.
  const std::string chunk = chunk_with_delta(R"({"content":"say \"content\":\"hidden\" ok"})");
  EXPECT_EQ(generated_text_bytes(chunk), std::string(R"(say "content":"hidden" ok)").size());
  const std::string args = chunk_with_delta(
      R"({"tool_calls":[{"function":{"arguments":"{\"refusal\":\"x\",\"reasoning_content\":\"yy\",\"arguments\":\"z\"}"}}]})");
  EXPECT_EQ(generated_text_bytes(args),
            std::string(R"({"refusal":"x","reasoning_content":"yy","arguments":"z"})").size());
  // Double-escaped JSON inside JSON.
  const std::string nested = chunk_with_delta(R"({"content":"\\\"content\\\":\\\"n\\\""})");
  EXPECT_EQ(generated_text_bytes(nested), std::string(R"(\"content\":\"n\")").size());
}

TEST(GeneratedText, TruncatedChunksDoNotOverrun) {
  EXPECT_EQ(generated_text_bytes(R"({"delta":{"content":"abc)"), 3u);
  EXPECT_LE(generated_text_bytes(R"({"delta":{"content":"ab\)"), 3u);
  EXPECT_EQ(generated_text_bytes(R"({"delta":{"content":")"), 0u);
  EXPECT_EQ(generated_text_bytes(R"({"delta":{"content":)"), 0u);
}

TEST(GeneratedText, CountsAnAnthropicMessagesContentBlockDelta) {
  // A native Messages stream cut short is estimated from its deltas.
  EXPECT_EQ(generated_text_bytes(
                R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}})"),
            5u);
  EXPECT_EQ(
      generated_text_bytes(
          R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm\n"}})"),
      4u);
  EXPECT_EQ(
      generated_text_bytes(
          R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}})"),
      7u);
  // Keys sorted (a plugin that writes the event again) count the same.
  EXPECT_EQ(generated_text_bytes(
                R"({"delta":{"text":"Hey","type":"text_delta"},"index":0,"type":"content_block_delta"})"),
            3u);
  // Text that is not generated, or repeats deltas, is not counted.
  EXPECT_EQ(generated_text_bytes(
                R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"),
            0u);
  EXPECT_EQ(generated_text_bytes(R"({"type":"signature_delta","signature":"abc"})"), 0u);
  EXPECT_EQ(generated_text_bytes(R"({"type":"response.output_text.done","text":"repeated"})"), 0u);
  // A chat chunk whose text mentions the event type counts its content once.
  EXPECT_EQ(
      generated_text_bytes(R"({"choices":[{"delta":{"content":"\"content_block_delta\" \"text\":\"x\""}}]})"),
      std::string(R"("content_block_delta" "text":"x")").size());
}

}  // namespace
