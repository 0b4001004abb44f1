// modelgw/provider/openai_chunk.hpp: the chunk envelope, the final usage
// chunk, the usage object and the estimate.
#include <modelgw/provider/openai_chunk.hpp>

#include <gtest/gtest.h>

#include <limits>

namespace {

using namespace mgw::provider;

const ChunkEnvelope kEnvelope{"chatcmpl-abc", 1700000000, "my-alias"};

TEST(Chunk, HasOpenAIsMembersInOpenAIsOrder) {
  const Json choices =
      Json::array({Json{{"index", 0}, {"delta", {{"content", "hi"}}}, {"finish_reason", nullptr}}});
  EXPECT_EQ(
      dump(kEnvelope.chunk(choices)),
      R"({"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"my-alias",)"
      R"("choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],)"
      R"("usage":null})");
}

TEST(Chunk, TheFinalChunkHasNoChoicesAndTheUsage) {
  mgw_usage u = mgw::usage(9, 3);
  u.cached_prompt_tokens = 4;
  EXPECT_EQ(
      dump(kEnvelope.usage_chunk(usage_json(u))),
      R"({"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"my-alias",)"
      R"("choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,)"
      R"("total_tokens":12,"prompt_tokens_details":{"cached_tokens":4}}})");
}

TEST(Usage, CacheDetailsOnlyForACacheHit) {
  EXPECT_EQ(dump(usage_json(mgw::usage(1, 2))),
            R"({"prompt_tokens":1,"completion_tokens":2,"total_tokens":3})");
}

TEST(Usage, TheEstimateTakesTheHostsPromptCount) {
  const mgw_usage u = estimated_usage(120, 18);  // ceil(18 / 4) = 5
  EXPECT_EQ(u.struct_size, sizeof(mgw_usage));
  EXPECT_EQ(u.prompt_tokens, 120);
  EXPECT_EQ(u.completion_tokens, 5);
  EXPECT_EQ(u.total_tokens, 125);
  EXPECT_EQ(estimated_usage(-3, 0).prompt_tokens, 0);  // unknown is 0, never negative
  EXPECT_EQ(estimated_usage(std::numeric_limits<int64_t>::max(), 4).total_tokens,
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(estimated_completion_tokens(0), 0);
  EXPECT_EQ(estimated_completion_tokens(4), 1);
  EXPECT_EQ(estimated_completion_tokens(5), 2);
}

TEST(Usage, TheHostsPromptCountIsNeverNegative) {
  mgw_call_context call{};
  call.struct_size = sizeof call;
  call.prompt_tokens = 77;
  EXPECT_EQ(host_prompt_tokens(call), 77);
  call.prompt_tokens = -1;
  EXPECT_EQ(host_prompt_tokens(call), 0);
}

}  // namespace
