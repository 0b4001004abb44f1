// modelgw/provider/embeddings.hpp: what an embeddings call asked for, read
// from the member index, and the OpenAI list every provider answers with.
#include <modelgw/provider/embeddings.hpp>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace mgw::provider;

struct IndexedCall {
  std::vector<mgw_json_member> members;
  mgw_call_context call{};
  IndexedCall(std::initializer_list<std::pair<std::string_view, std::string_view>> index) {
    for (const auto& [n, v] : index) members.push_back({mgw::str(n), mgw::str(v)});
    call.struct_size = sizeof call;
    call.members = members.empty() ? nullptr : members.data();
    call.member_count = members.size();
  }
};

TEST(EmbeddingsHelpers, ReadsTheFormatAndTheInputCount) {
  IndexedCall c({{"model", "\"m\""}, {"input", R"(["a", [1,2], "b"])"}, {"encoding_format", "\"base64\""}});
  EmbeddingsAsked asked = embeddings_asked(c.call);
  EXPECT_TRUE(asked.base64);
  EXPECT_EQ(asked.inputs, 3u);

  IndexedCall floats({{"input", "\"one\""}, {"encoding_format", "\"float\""}});
  asked = embeddings_asked(floats.call);
  EXPECT_FALSE(asked.base64);
  EXPECT_EQ(asked.inputs, 1u);

  IndexedCall none({});
  asked = embeddings_asked(none.call);  // a host that gives no index
  EXPECT_FALSE(asked.base64);
  EXPECT_FALSE(asked.inputs.has_value());
}

TEST(EmbeddingsHelpers, TheListSplicesEachVectorAsItsText) {
  const std::vector<std::string_view> vectors = {"[0.0120,-1E-3]", "\"AAAA\""};
  const std::string list = embeddings_list_json(vectors, "\"alias\"", 9);
  EXPECT_EQ(list, R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0120,-1E-3]},)"
                  R"({"object":"embedding","index":1,"embedding":"AAAA"}],"model":"alias",)"
                  R"("usage":{"prompt_tokens":9,"total_tokens":9}})");
  EXPECT_FALSE(nlohmann::json::parse(list, nullptr, false).is_discarded());
  const mgw_usage u = embeddings_usage(-3);
  EXPECT_EQ(u.struct_size, sizeof(mgw_usage));
  EXPECT_EQ(u.prompt_tokens, 0);
  EXPECT_EQ(u.completion_tokens, 0);
}

}  // namespace
