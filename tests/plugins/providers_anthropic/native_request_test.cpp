// The native operations (ABI 1.11): which ones a config declares, and the
// vendor request of a "messages" and a "count_tokens" call.
#include "chat/body_members.h"
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace anthropic_test {
namespace {

// A Messages body with what a native client sends and the chat path never
// would: cache_control, a signed thinking block, a document, tool blocks, and
// a number written in a form a re-serialiser would change.
constexpr const char* kMessagesBody =
    R"({"model":"svc-alias","max_tokens":1024,"system":[{"type":"text","text":"Be brief.",)"
    R"("cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"document",)"
    R"("source":{"type":"text","media_type":"text/plain","data":"doc"}},{"type":"text","text":"Hi"}]},)"
    R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"EqQBCgIYAh=="},)"
    R"({"type":"tool_use","id":"toolu_1","name":"f","input":{"q":1}}]},{"role":"user","content":[)"
    R"({"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}],"temperature":1.50,)"
    R"("thinking":{"type":"enabled","budget_tokens":1024},"tools":[{"name":"f","input_schema":{"type":"object"}}],)"
    R"("tool_choice":{"type":"auto"},"metadata":{"user_id":"u1"},"stop_sequences":["END"],"stream":false,)"
    R"("top_k":5,"service_tier":"auto","mcp_servers":[{"type":"url","url":"https://mcp.example","name":"m"}]})";

CallContext native_call(std::string_view op, bool stream = false) {
  CallContext c;
  c.operation = std::string(op);
  c.stream = stream;
  return c;
}

// The operations a provider made from `config` declares.
std::vector<std::string> declared_operations(std::string_view config) {
  Provider p(config);
  if (hooks().struct_size < MGW_PROVIDER_HOOKS_SIZE_1_10 || hooks().on_provider_operations == nullptr) {
    ADD_FAILURE() << "no on_provider_operations hook";
    return {};
  }
  std::vector<std::string> out;
  mgw_text_sink sink{&out, [](void* self, mgw_str text) {
                       static_cast<std::vector<std::string>*>(self)->emplace_back(mgw::view(text));
                     }};
  EXPECT_EQ(hooks().on_provider_operations(p.get(), &sink), MGW_OK);
  return out;
}

// Builds `body` both with the host's member index and without; both must
// give the same bytes, which are returned.
std::string built_both_ways(const Provider& p, CallContext call, std::string_view body) {
  auto parsed = build(p, call, body);
  EXPECT_EQ(parsed->status, MGW_OK) << parsed->refusal().message;
  auto index = modelgw::chat::index_members(body);
  EXPECT_TRUE(index.has_value());
  if (index) {
    call.members = *index;
  }
  auto spliced = build(p, call, body);
  EXPECT_EQ(spliced->status, MGW_OK) << spliced->refusal().message;
  EXPECT_EQ(spliced->req.body, parsed->req.body);
  return spliced->req.body;
}

// ---------------------------------------------------------------------------
// Configuration

TEST(NativeConfig, DeclaresMessagesAndCountTokensByDefault) {
  using V = std::vector<std::string>;
  EXPECT_EQ(declared_operations(kDefaultConfig), (V{"messages", "count_tokens"}));
  EXPECT_EQ(declared_operations(R"({"native_operations":null})"), (V{"messages", "count_tokens"}));
}

TEST(NativeConfig, TheConfiguredListWins) {
  using V = std::vector<std::string>;
  EXPECT_EQ(declared_operations(R"({"native_operations":[]})"), V{});
  EXPECT_EQ(declared_operations(R"({"native_operations":["count_tokens"]})"), V{"count_tokens"});
  EXPECT_EQ(declared_operations(R"({"native_operations":["messages","messages"]})"), V{"messages"});
}

TEST(NativeConfig, RefusesAnUnknownOperationNamingIt) {
  auto [status, text] = try_config(R"({"native_operations":["messages","responses"]})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text,
            "native_operations[1]: 'responses' is not an operation the anthropic provider serves natively "
            "(messages, count_tokens)");
  std::tie(status, text) = try_config(R"({"native_operations":["a\nb"]})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_NE(text.find("'a b'"), std::string::npos) << text;
}

TEST(NativeConfig, RefusesWrongTypes) {
  auto [status, text] = try_config(R"({"native_operations":"messages"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text.rfind("native_operations: must be an array", 0), 0u) << text;
  std::tie(status, text) = try_config(R"({"native_operations":[1]})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "native_operations[0]: must be a string");
}

// ---------------------------------------------------------------------------
// messages

TEST(NativeMessagesRequest, SendsTheBodyAsWrittenWithTheUpstreamModel) {
  Provider p;
  const std::string body = built_both_ways(p, native_call(MGW_OPERATION_MESSAGES), kMessagesBody);
  std::string expected = kMessagesBody;
  expected.replace(expected.find("svc-alias"), 9, "test-model");
  EXPECT_EQ(body, expected);  // byte for byte: 1.50, signatures, cache_control all kept
}

TEST(NativeMessagesRequest, GoesToMessagesWithTheChatPathsHeaders) {
  Provider p;
  auto b = build(p, native_call(MGW_OPERATION_MESSAGES), kMessagesBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/messages");
  EXPECT_EQ(b->req.header("x-api-key"), std::string(kApiKey));
  EXPECT_EQ(b->req.header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(b->req.header("content-type"), "application/json");
  EXPECT_EQ(b->req.header("accept"), "application/json");
  EXPECT_EQ(b->req.header("anthropic-beta"), std::nullopt);
  auto s = build(p, native_call(MGW_OPERATION_MESSAGES, true),
                 R"({"model":"a","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"Hi"}]})");
  ASSERT_EQ(s->status, MGW_OK);
  EXPECT_EQ(s->req.header("accept"), "text/event-stream");
  EXPECT_EQ(s->body()["stream"], true);
}

TEST(NativeMessagesRequest, AddsAModelWhenTheBodyHasNone) {
  Provider p;
  EXPECT_EQ(built_both_ways(p, native_call(MGW_OPERATION_MESSAGES), R"({"max_tokens":5,"messages":[]})"),
            R"({"model":"test-model","max_tokens":5,"messages":[]})");
}

TEST(NativeMessagesRequest, PassesTheClientsBetaMergedWithTheConfiguredOne) {
  Provider plain;
  CallContext call = native_call(MGW_OPERATION_MESSAGES);
  call.client_headers = {{"anthropic-beta", "files-api-2025-04-14"}};
  auto b = build(plain, call, kMessagesBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.header("anthropic-beta"), "files-api-2025-04-14");

  Provider configured(R"({"api_key":"k","beta":"prompt-caching-2024-07-31, files-api-2025-04-14"})");
  call.client_headers = {{"anthropic-beta", "files-api-2025-04-14 ,context-1m-2025-08-07,,"}};
  b = build(configured, call, kMessagesBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.header("anthropic-beta"),
            "prompt-caching-2024-07-31,files-api-2025-04-14,context-1m-2025-08-07");
  int betas = 0;
  for (const auto& [name, value] : b->req.headers) betas += name == "anthropic-beta" ? 1 : 0;
  EXPECT_EQ(betas, 1);

  // A beta set through `headers` merges the same way.
  Provider extra(R"({"headers":{"Anthropic-Beta":"a"}})");
  call.client_headers = {{"anthropic-beta", "b"}};
  b = build(extra, call, kMessagesBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.header("anthropic-beta"), "a,b");
}

TEST(NativeMessagesRequest, AChatCallNeverCarriesTheClientsBeta) {
  Provider p;
  CallContext call;
  call.client_headers = {{"anthropic-beta", "x"}};
  auto b = build(p, call, R"({"model":"a","messages":[{"role":"user","content":"Hi"}]})");
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.header("anthropic-beta"), std::nullopt);
  EXPECT_EQ(b->req.path, "/messages");
}

TEST(NativeMessagesRequest, AnOperationNotDeclaredIsRefused) {
  Provider p(R"({"native_operations":[]})");
  for (const char* op : {MGW_OPERATION_MESSAGES, MGW_OPERATION_COUNT_TOKENS, MGW_OPERATION_RESPONSES}) {
    auto b = build(p, native_call(op), kMessagesBody);
    EXPECT_EQ(b->status, MGW_UNSUPPORTED) << op;
    EXPECT_EQ(b->refusal().http_status, 500) << op;
    EXPECT_TRUE(b->req.body.empty()) << op;
  }
}

TEST(NativeMessagesRequest, ABodyThatIsNotAnObjectIsRefused) {
  Provider p;
  for (const char* body : {"[]", "not json", "\"x\""}) {
    auto b = build(p, native_call(MGW_OPERATION_MESSAGES), body);
    EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT) << body;
    EXPECT_EQ(b->refusal().http_status, 400) << body;
  }
}

// ---------------------------------------------------------------------------
// count_tokens

TEST(NativeCountTokensRequest, KeepsOnlyWhatTheCountingEndpointTakes) {
  Provider p;
  CallContext call = native_call(MGW_OPERATION_COUNT_TOKENS);
  call.client_headers = {{"anthropic-beta", "token-counting-2024-11-01"}};
  const Json body = Json::parse(built_both_ways(p, call, kMessagesBody));
  std::vector<std::string> keys;
  for (auto it = body.begin(); it != body.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "system", "messages", "thinking", "tools", "tool_choice",
                                            "mcp_servers"}));
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["system"], Json::parse(kMessagesBody)["system"]);
  auto b = build(p, call, kMessagesBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.path, "/messages/count_tokens");
  EXPECT_EQ(b->req.header("accept"), "application/json");
  EXPECT_EQ(b->req.header("x-api-key"), std::string(kApiKey));
  EXPECT_EQ(b->req.header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(b->req.header("anthropic-beta"), "token-counting-2024-11-01");
}

TEST(NativeCountTokensRequest, WithoutMessagesDeclaredTheBodyIsAChatOne) {
  Provider p(R"({"native_operations":["count_tokens"]})");
  auto b =
      build(p, native_call(MGW_OPERATION_COUNT_TOKENS),
            R"({"model":"a","max_tokens":7,"temperature":0.5,"messages":[{"role":"system","content":"S"},)"
            R"({"role":"user","content":"Hi"}]})");
  ASSERT_EQ(b->status, MGW_OK) << b->refusal().message;
  EXPECT_EQ(b->req.path, "/messages/count_tokens");
  EXPECT_EQ(
      b->body(),
      Json::parse(R"({"model":"test-model","system":"S","messages":[{"role":"user","content":"Hi"}]})"));
}

}  // namespace
}  // namespace anthropic_test
