// Non-streamed chat through the real gateway to the fake upstream.
#include "harness/checks.h"
#include "harness/stack.h"

#include <set>
#include <thread>
#include <vector>

namespace it {
namespace {

class ChatPlainTest : public SharedStackTest<ChatPlainTest> {};

TEST_F(ChatPlainTest, AnswersWithRequestIdAliasReplyAndUsage) {
  const json messages = json::array({{{"role", "system"}, {"content", "You are a test."}},
                                     {{"role", "user"}, {"content", "plain-1   Hello\n there  world "}}});
  const json request = {{"model", "house-chat"}, {"messages", messages}};
  const auto r = post_chat(port(), key(), request.dump());

  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("application/json", 0), 0u) << r.header("content-type");
  const std::string id = r.header("x-request-id");
  EXPECT_TRUE(is_request_id(id)) << id;
  // request_id is inserted as the first member of the upstream's object.
  EXPECT_EQ(r.body.rfind("{\"request_id\":\"" + id + "\"", 0), 0u) << r.body;

  const json body = r.json();
  ASSERT_TRUE(body.is_object()) << r.body;
  EXPECT_EQ(body["request_id"], id);
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["model"], "house-chat") << "model must be the catalog alias, not the upstream model";
  ASSERT_TRUE(body["choices"].is_array() && body["choices"].size() == 1) << r.body;
  EXPECT_EQ(body["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(body["choices"][0]["message"]["content"], "echo: plain-1 Hello there world");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  // P = (4 + ceil(15/4)) + (4 + ceil(30/4)) = 8 + 12 = 20; C = 5.
  const json usage = fake_usage(messages, "echo: plain-1 Hello there world");
  EXPECT_EQ(usage, json({{"prompt_tokens", 20}, {"completion_tokens", 5}, {"total_tokens", 25}}));
  EXPECT_EQ(body["usage"], usage) << r.body;
}

TEST_F(ChatPlainTest, RequestIdsAreUniqueAcrossCalls) {
  std::set<std::string> ids;
  constexpr int kCalls = 12;
  for (int i = 0; i < kCalls; ++i) {
    const auto r = post_chat(port(), key(), chat_body("gpt-4o-mini", "unique " + std::to_string(i)));
    ASSERT_EQ(r.status, 200) << r.body;
    const std::string id = r.header("x-request-id");
    ASSERT_TRUE(is_request_id(id)) << id;
    EXPECT_EQ(r.json()["request_id"], id);
    ids.insert(id);
  }
  // Errors and health checks get ids from the same source.
  ids.insert(http_get(port(), "/healthz").header("x-request-id"));
  ids.insert(post_chat(port(), key(), "{").header("x-request-id"));
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kCalls + 2));
}

TEST_F(ChatPlainTest, UpstreamGetsCatalogModelAndProviderKey) {
  const auto r = post_chat(port(), key(), chat_body("house-chat", "plain-upstream-marker-7"));
  ASSERT_EQ(r.status, 200) << r.body;

  const json sent = stack().fake->find_request("plain-upstream-marker-7");
  ASSERT_TRUE(sent.is_object()) << "the fake upstream never saw the request";
  EXPECT_EQ(sent["method"], "POST");
  EXPECT_EQ(sent["path"], "/v1/chat/completions");
  EXPECT_EQ(sent["body"]["model"], "gpt-4o-mini") << "the upstream gets the catalog's model, not the alias";
  EXPECT_EQ(sent["headers"]["authorization"], std::string("Bearer ") + kProviderKey);
  EXPECT_FALSE(sent["body"].contains("request_id"));
  EXPECT_EQ(sent["body"]["messages"], user_messages("plain-upstream-marker-7"));
  // The client's key is the gateway's business only.
  EXPECT_EQ(sent.dump().find(key()), std::string::npos) << sent.dump();
}

TEST_F(ChatPlainTest, NonAsciiTextRoundTrips) {
  const std::string text = "h\u00e9llo \u4e16\u754c \U0001F642 \"quoted\" back\\slash";
  const auto r = post_chat(port(), key(), chat_body("gpt-4o-mini", text));
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = r.json();
  EXPECT_EQ(body["choices"][0]["message"]["content"], "echo: " + text);
  EXPECT_EQ(body["usage"], fake_usage(user_messages(text), "echo: " + text));
}

TEST_F(ChatPlainTest, ConcurrentRequestsEachGetTheirOwnAnswer) {
  constexpr int kThreads = 8;
  constexpr int kEach = 4;
  std::vector<std::string> failures(kThreads);
  std::vector<std::set<std::string>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string text = "thread " + std::to_string(t) + " call " + std::to_string(i);
        const bool stream = i % 2 == 1;
        try {
          std::string content;
          std::string id;
          if (stream) {
            const auto s = stream_chat(port(), key(), chat_body("gpt-4o-mini", text, true));
            content = summarize(s.events).content;
            id = s.header("x-request-id");
          } else {
            const auto r = post_chat(port(), key(), chat_body("gpt-4o-mini", text));
            content = r.json()["choices"][0]["message"]["content"].get<std::string>();
            id = r.header("x-request-id");
          }
          if (content != "echo: " + text) failures[t] += "'" + text + "' got '" + content + "'; ";
          ids[t].insert(id);
        } catch (const std::exception& e) {
          failures[t] += text + ": " + e.what() + "; ";
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::string> all;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], "") << "thread " << t;
    all.insert(ids[t].begin(), ids[t].end());
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kEach));
}

TEST_F(ChatPlainTest, ModelsListsTheCatalogAliases) {
  const auto r = http_get(port(), "/v1/models", key());
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = r.json();
  EXPECT_EQ(body["request_id"], r.header("x-request-id"));
  std::set<std::string> ids;
  for (const auto& m : body["data"]) ids.insert(m["id"].get<std::string>());
  EXPECT_EQ(ids.size(), standard_catalog().size());
  EXPECT_TRUE(ids.count("house-chat"));
  EXPECT_TRUE(ids.count("gpt-4o-mini"));
}

}  // namespace
}  // namespace it
