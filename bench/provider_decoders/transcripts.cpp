#include "transcripts.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>

namespace modelgw::bench {
namespace {

// Words of the generated answer; JSON-escaped where a vendor would escape them.
constexpr std::array<std::string_view, 24> kWords = {
    "the",   "gateway", "forwards", "each",           "token",   "as", "it",     "arrives", "Grüße",  "über",
    "naïve", "café",    "\\n",      "\\\"quoted\\\"", "streams", "of", "server", "sent",    "events", "carry",
    "one",   "delta",   "at",       "a time"};

// A delta text of 1 to 6 words, as vendors stream one or a few tokens per event.
std::string delta_text(std::mt19937& rng) {
  std::uniform_int_distribution<std::size_t> count(1, 6);
  std::uniform_int_distribution<std::size_t> pick(0, kWords.size() - 1);
  std::string text;
  for (std::size_t n = count(rng); n > 0; --n) {
    text += ' ';
    text += kWords[pick(rng)];
  }
  return text;
}

}  // namespace

std::string openai_transcript(std::size_t bytes) {
  std::mt19937 rng(1);
  const std::string head =
      R"(data: {"id":"chatcmpl-BwQ3K9xLmP2vT7nR4sY8","object":"chat.completion.chunk","created":1741569952,)"
      R"("model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306",)";
  std::string out = head +
                    R"("choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},)"
                    R"("logprobs":null,"finish_reason":null}],"usage":null})"
                    "\n\n";
  while (out.size() < bytes) {
    out += head + R"("choices":[{"index":0,"delta":{"content":")" + delta_text(rng) +
           R"("},"logprobs":null,"finish_reason":null}],"usage":null})"
           "\n\n";
  }
  out += head + R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null})"
                "\n\n";
  out += head + R"("choices":[],"usage":{"prompt_tokens":9,"completion_tokens":90000,"total_tokens":90009}})"
                "\n\n";
  out += "data: [DONE]\n\n";
  return out;
}

std::string anthropic_transcript(std::size_t bytes) {
  std::mt19937 rng(2);
  std::string out =
      "event: message_start\n"
      R"(data: {"type":"message_start","message":{"id":"msg_01PPTB1VfAYm5zB6hT3hLW8y","type":"message",)"
      R"("role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,)"
      R"("stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,)"
      R"("cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}})"
      "\n\n"
      "event: content_block_start\n"
      R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"
      "\n\n";
  std::size_t events = 0;
  while (out.size() < bytes) {
    if (++events % 64 == 0) {
      out += "event: ping\ndata: {\"type\": \"ping\"}\n\n";
    }
    out +=
        "event: content_block_delta\n"
        R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":")" +
        delta_text(rng) + "\"}}\n\n";
  }
  out +=
      "event: content_block_stop\n"
      R"(data: {"type":"content_block_stop","index":0})"
      "\n\n"
      "event: message_delta\n"
      R"(data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},)"
      R"("usage":{"output_tokens":90000}})"
      "\n\n"
      "event: message_stop\n"
      R"(data: {"type":"message_stop"})"
      "\n\n";
  return out;
}

std::string gemini_transcript(std::size_t bytes) {
  std::mt19937 rng(3);
  const std::string tail = R"(,"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8,)"
                           R"("promptTokensDetails":[{"modality":"TEXT","tokenCount":8}]},)"
                           R"("modelVersion":"gemini-2.0-flash","responseId":"0EeIaOr3Ls-RmecPxZ6B0Qg"})";
  std::string out;
  while (out.size() < bytes) {
    out += R"(data: {"candidates":[{"content":{"parts":[{"text":")" + delta_text(rng) +
           R"("}],"role":"model"},"index":0}])" + tail + "\r\n\r\n";
  }
  out +=
      R"(data: {"candidates":[{"content":{"parts":[{"text":"."}],"role":"model"},"finishReason":"STOP",)"
      R"("index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":90000,)"
      R"("totalTokenCount":90008},"modelVersion":"gemini-2.0-flash","responseId":"0EeIaOr3Ls-RmecPxZ6B0Qg"})"
      "\r\n\r\n";
  return out;
}

std::vector<std::string_view> socket_reads(std::string_view text, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> size(1, 2920);
  std::vector<std::string_view> pieces;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t n = std::min(size(rng), text.size() - at);
    pieces.push_back(text.substr(at, n));
    at += n;
  }
  return pieces;
}

}  // namespace modelgw::bench
