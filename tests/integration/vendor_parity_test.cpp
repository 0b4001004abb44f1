// Vendor parity: the same OpenAI-shaped request sent to an OpenAI, an
// Anthropic and a Gemini alias must come back in the same shapes, with the
// same text and token counts; only `model` tells them apart. Each vendor also
// gets its own wire format upstream, and its faults map to the same errors.
// Every test runs once per vendor (gpt, claude, gemini) against one shared
// gateway and fake upstream.
#include "harness/checks.h"
#include "harness/openai_schema.h"
#include "harness/stack.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace it {
namespace {

using namespace std::chrono_literals;

// ---------------------------------------------------------------------------
// The vendors and the catalog
// ---------------------------------------------------------------------------

struct Vendor {
  std::string alias;      // the catalog alias a client names
  std::string provider;   // the provider (and plugin) behind it
  std::string model;      // the upstream model
  std::string wrong_key;  // the key of "<provider>-badkey", which the fake refuses
};

// GoogleTest prints the parameter in failure messages.
void PrintTo(const Vendor& vendor, std::ostream* os) {
  *os << vendor.alias << " (" << vendor.provider << ")";
}

const std::vector<Vendor>& vendors() {
  static const std::vector<Vendor> all = {
      {"gpt", "openai", "gpt-4o-mini", "sk-itwrong-Qz4Rt8Lm2Xw7Np3Kd9Vb6Hs5"},
      {"claude", "anthropic", "claude-sonnet-4-5", "sk-ant-itwrong-Jc5Wq8Zr3Tn6Lp9Xm2Bd7"},
      {"gemini", "gemini", "gemini-2.5-flash", "AIzaItWrong7Hq2Lm9Xw4Rt8Vb3Np6KdZ5sQ"},
  };
  return all;
}

// Fault aliases, "<alias>-<suffix>", each the vendor's model plus these tokens.
const std::map<std::string, std::string>& fault_aliases() {
  static const std::map<std::string, std::string> all = {
      {"rate-limited", "+status=429+retry_after=3"},
      {"err-500", "+status=500"},
      {"err-503", "+status=503"},
      {"err-529", "+status=529"},
      {"context", "+context"},
      {"error200", "+error200"},
      {"html", "+html"},
      {"garbage", "+garbage"},
      {"cut-2", "+cut_after=2"},
      {"split", "+split"},
      {"comments", "+comments"},
  };
  return all;
}

std::vector<CatalogEntry> parity_catalog() {
  std::vector<CatalogEntry> catalog;
  for (const auto& v : vendors()) {
    catalog.push_back({v.alias, v.provider, v.model});
    for (const auto& [suffix, tokens] : fault_aliases()) {
      catalog.push_back({v.alias + "-" + suffix, v.provider, v.model + tokens});
    }
    catalog.push_back({v.alias + "-badkey", v.provider + "-badkey", v.model});
  }
  return catalog;
}

// One more provider per vendor, pointing at the fake with a key it refuses.
std::string wrong_key_providers(int fake_port) {
  const std::string fake = "http://127.0.0.1:" + std::to_string(fake_port);
  std::ostringstream y;
  for (const auto& v : vendors()) {
    y << "  " << v.provider << "-badkey:\n"
      << "    plugin: " << v.provider << "\n"
      << "    base_url: \"" << fake << (v.provider == "gemini" ? "/v1beta" : "/v1") << "\"\n"
      << "    api_key: \"" << v.wrong_key << "\"\n";
  }
  return y.str();
}

std::unique_ptr<Stack> start_parity_stack() {
  auto stack = std::make_unique<Stack>();
  stack->fake = std::make_unique<FakeUpstream>(kProviderKey);
  GatewayOptions options;
  options.upstream_port = stack->fake->port();
  options.catalog = parity_catalog();
  options.extra_providers_yaml = wrong_key_providers(stack->fake->port());
  stack->gateway = std::make_unique<Gateway>(std::move(options));
  stack->gateway->create_tenant("acme");
  stack->key = stack->gateway->create_key("acme");
  stack->gateway->start();
  return stack;
}

// ---------------------------------------------------------------------------
// Request builders
// ---------------------------------------------------------------------------

const char* const kToolName = "lookup_weather";

json lookup_tools() {
  return json::array({{{"type", "function"},
                       {"function",
                        {{"name", kToolName},
                         {"description", "Looks up the weather for a query."},
                         {"parameters",
                          {{"type", "object"},
                           {"properties", {{"query", {{"type", "string"}}}}},
                           {"required", json::array({"query"})}}}}}},
                      {{"type", "function"},
                       {"function", {{"name", "second_tool"}, {"parameters", {{"type", "object"}}}}}}});
}

json request(const std::string& model, const json& messages, bool stream = false) {
  json r = {{"model", model}, {"messages", messages}};
  if (stream) r["stream"] = true;
  return r;
}

// A conversation where the assistant called kToolName and the tool answered.
json tool_result_conversation(const std::string& marker) {
  const std::string question = "weather in Paris " + marker;
  const json arguments = {{"query", question}};
  return json::array(
      {{{"role", "user"}, {"content", question}},
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls",
         json::array({{{"id", "call_parity_1"},
                       {"type", "function"},
                       {"function", {{"name", kToolName}, {"arguments", arguments.dump()}}}}})}},
       {{"role", "tool"}, {"tool_call_id", "call_parity_1"}, {"content", "sunny, 21 C " + marker}}});
}

// A 1x1 PNG.
const char* const kPngBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

// ---------------------------------------------------------------------------
// Reading answers
// ---------------------------------------------------------------------------

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  if (object.is_object()) {
    for (const auto& item : object.items()) keys.insert(item.key());
  }
  return keys;
}

std::string join(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return "{" + out + "}";
}

bool is_integer_seconds(const std::string& value) {
  return !value.empty() && value.size() <= 6 &&
         std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// The tool calls of a stream, accumulated by index as OpenAI clients do.
struct StreamedToolCall {
  std::string id;
  std::string type;
  std::string name;
  std::string arguments;
  int fragments = 0;
};

std::map<int, StreamedToolCall> accumulate_tool_calls(const std::vector<json>& chunks) {
  std::map<int, StreamedToolCall> calls;
  for (const auto& chunk : chunks) {
    if (!chunk.contains("choices") || !chunk["choices"].is_array()) continue;
    for (const auto& choice : chunk["choices"]) {
      const json delta = choice.value("delta", json::object());
      if (!delta.contains("tool_calls") || !delta["tool_calls"].is_array()) continue;
      for (const auto& piece : delta["tool_calls"]) {
        StreamedToolCall& call = calls[piece.value("index", -1)];
        ++call.fragments;
        if (piece.contains("id") && piece["id"].is_string()) call.id = piece["id"].get<std::string>();
        if (piece.contains("type") && piece["type"].is_string()) call.type = piece["type"].get<std::string>();
        const json function = piece.value("function", json::object());
        if (function.contains("name") && function["name"].is_string())
          call.name = function["name"].get<std::string>();
        if (function.contains("arguments") && function["arguments"].is_string())
          call.arguments += function["arguments"].get<std::string>();
      }
    }
  }
  return calls;
}

// The finish_reason values of a stream, in order.
std::vector<std::string> finish_reasons(const std::vector<json>& chunks) {
  std::vector<std::string> reasons;
  for (const auto& chunk : chunks) {
    if (!chunk.contains("choices") || !chunk["choices"].is_array()) continue;
    for (const auto& choice : chunk["choices"]) {
      if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
        reasons.push_back(choice["finish_reason"].get<std::string>());
    }
  }
  return reasons;
}

HttpResponse as_response(const SseResult& s) {
  return HttpResponse{s.status, s.headers, s.body};
}

// A fault that surfaced cleanly: a spec error before the stream began, or a
// stream whose relayed content is a prefix of the reply and which ends with
// one {"error":{...provider_failed...}} event and no [DONE].
::testing::AssertionResult IsCleanStreamFailure(const SseResult& r, const std::string& reply) {
  if (r.status != 200) return IsApiError(as_response(r), 502, "api_error", "provider_failed");
  auto fail = [&r](const std::string& what) {
    std::string events;
    for (const auto& e : r.events) events += "\n  data: " + e.data;
    return ::testing::AssertionFailure() << what << "; events:" << events;
  };
  if (r.header("content-type").rfind("text/event-stream", 0) != 0)
    return fail("200 but content-type '" + r.header("content-type") + "'");
  auto s = summarize(r.events);
  if (!s.all_json) return fail("an event is not JSON");
  if (s.done_count != 0) return fail("a failed stream must not send [DONE]");
  if (s.usage_chunk) return fail("a failed stream must not send a usage chunk");
  if (reply.rfind(s.content, 0) != 0)
    return fail("relayed content '" + s.content + "' is not a prefix of the reply");
  if (r.events.empty()) return fail("no events at all");
  const json last = json::parse(r.events.back().data, nullptr, false);
  if (!last.is_object() || last.size() != 1 || !last.contains("error"))
    return fail("the last event is not {\"error\":{...}} alone");
  const json& e = last["error"];
  if (e.value("code", "") != "provider_failed" || e.value("type", "") != "api_error")
    return fail("the error event is not api_error/provider_failed");
  if (e.value("request_id", "") != r.header("x-request-id"))
    return fail("error.request_id is not X-Request-Id");
  if (!e.contains("message") || !e["message"].is_string()) return fail("error.message is missing");
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// The fixture: one stack for the whole suite, every test once per vendor
// ---------------------------------------------------------------------------

class VendorParityTest : public ::testing::TestWithParam<Vendor> {
 public:
  static void SetUpTestSuite() {
    try {
      stack_ = start_parity_stack();
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }

  static Stack& stack() { return *stack_; }
  static int port() { return stack_->port(); }
  static const std::string& key() { return stack_->key.key; }

  const Vendor& vendor() const { return GetParam(); }
  std::string alias(const std::string& fault = {}) const {
    return fault.empty() ? vendor().alias : vendor().alias + "-" + fault;
  }
  // A marker unique to this test and vendor, to find the upstream request.
  std::string marker(const std::string& what) const { return "mk-" + what + "-" + vendor().alias; }

  // Every answer is checked for secrets: the provider keys must never leak.
  static void expect_no_secrets(const std::string& text) {
    std::vector<std::string> secrets = {kProviderKey, std::string(kProviderKey).substr(0, 16), "sk-ab***yz"};
    for (const auto& v : vendors()) {
      secrets.push_back(v.wrong_key);
      secrets.push_back(v.wrong_key.substr(0, 16));
    }
    for (const auto& secret : secrets) {
      EXPECT_EQ(text.find(secret), std::string::npos) << "'" << secret << "' leaked into: " << text;
    }
  }
  static std::string headers_text(const Headers& headers) {
    std::string out;
    for (const auto& [name, value] : headers) out += name + ": " + value + "\n";
    return out;
  }

  static HttpResponse plain(const json& body) {
    auto r = post_chat(port(), key(), body.dump());
    expect_no_secrets(headers_text(r.headers) + r.body);
    return r;
  }
  static SseResult streamed(const json& body) {
    auto r = stream_chat(port(), key(), body.dump(), 2000);
    std::string all = headers_text(r.headers) + r.body;
    for (const auto& e : r.events) all += e.data + "\n";
    expect_no_secrets(all);
    return r;
  }

  // What the fake upstream received for a request carrying `mark`.
  static json upstream_request(const std::string& mark) {
    json sent = stack().fake->find_request(mark);
    EXPECT_TRUE(sent.is_object()) << "the fake upstream never saw a request with '" << mark << "'";
    return sent.is_object() ? sent : json::object();
  }

  // The gateway's plain answer from the OpenAI alias: the reference shape.
  static json openai_answer(const json& messages) {
    const auto r = plain(request("gpt", messages));
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json();
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string setup_error_;
};

// Why the OpenAI run of a tool-answer test may be skipped.
// The tool-call answers of vendors the plugins translate. fake_upstream's
// OpenAI route answers tools requests with text, and the openai plugin relays
// a vendor's tool_calls unchanged (its fixture tests cover that), so only the
// translating vendors are run here: never a skipped test.
class VendorToolParityTest : public VendorParityTest {};

std::vector<Vendor> translating_vendors() {
  std::vector<Vendor> out;
  for (const auto& v : vendors()) {
    if (v.provider != "openai") out.push_back(v);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Plain answers
// ---------------------------------------------------------------------------

TEST_P(VendorParityTest, PlainAnswerHasTheSameTopLevelKeysAsOpenAi) {
  const json messages = user_messages("keys " + marker("keys"));
  json reference = openai_answer(messages);
  const auto r = plain(request(alias(), messages));
  ASSERT_EQ(r.status, 200) << r.body;
  // system_fingerprint is optional in OpenAI's schema: only a vendor that
  // has one sends it.
  reference.erase("system_fingerprint");
  json body = r.json();
  body.erase("system_fingerprint");
  EXPECT_EQ(join(keys_of(body)), join(keys_of(reference))) << r.body << "\nOpenAI's: " << reference.dump();
}

// Checked against openai/openai-openapi's CreateChatCompletionResponse and
// CreateChatCompletionStreamResponse: required members, nullability, types.
TEST_P(VendorParityTest, PlainAnswersAndStreamChunksConformToOpenAisSchema) {
  const json messages = user_messages("schema " + marker("schema"));
  const auto p = plain(request(alias(), messages));
  ASSERT_EQ(p.status, 200) << p.body;
  json body = p.json();
  body.erase("request_id");  // the gateway's own member, besides the schema's
  EXPECT_TRUE(ConformsToChatCompletionSchema(body));
  json with_usage = request(alias(), messages, true);
  with_usage["stream_options"] = {{"include_usage", true}};
  const auto r = streamed(with_usage);
  ASSERT_EQ(r.status, 200) << r.body;
  auto s = summarize(r.events);
  ASSERT_FALSE(s.chunks.empty());
  for (json chunk : s.chunks) {
    chunk.erase("request_id");
    EXPECT_TRUE(ConformsToChatCompletionChunkSchema(chunk));
  }
}

TEST_P(VendorParityTest, PlainAnswerFieldsHaveOpenAiShapes) {
  const auto r = plain(request(alias(), user_messages("shapes " + marker("shapes"))));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("application/json", 0), 0u) << r.header("content-type");
  json body = r.json();
  ASSERT_TRUE(body.is_object()) << r.body;
  EXPECT_TRUE(body["id"].is_string() && !body["id"].get<std::string>().empty()) << r.body;
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_TRUE(body["created"].is_number_integer()) << r.body;
  EXPECT_EQ(body["model"], alias()) << "model must be the alias the client named";
  EXPECT_EQ(body["request_id"], r.header("x-request-id"));
  EXPECT_TRUE(is_request_id(r.header("x-request-id"))) << r.header("x-request-id");
  EXPECT_EQ(r.body.rfind("{\"request_id\":", 0), 0u) << "request_id is the first member: " << r.body;
  ASSERT_TRUE(body["choices"].is_array() && body["choices"].size() == 1) << r.body;
  json& choice = body["choices"][0];
  EXPECT_EQ(choice["index"], 0);
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_TRUE(choice["message"]["content"].is_string()) << r.body;
  EXPECT_FALSE(choice["message"].contains("tool_calls")) << r.body;
  EXPECT_EQ(choice["finish_reason"], "stop");
  ASSERT_TRUE(body["usage"].is_object()) << r.body;
  for (const char* member : {"prompt_tokens", "completion_tokens", "total_tokens"}) {
    EXPECT_TRUE(body["usage"][member].is_number_integer()) << member << " in " << r.body;
  }
}

// OpenAI's ids are "chatcmpl-..."; another prefix (Anthropic's "msg_...")
// tells the client which vendor answered.
TEST_P(VendorParityTest, CompletionIdsHaveOpenAisPrefix) {
  const json messages = user_messages("ids " + marker("ids"));
  const auto p = plain(request(alias(), messages));
  const auto r = streamed(request(alias(), messages, true));
  ASSERT_EQ(p.status, 200) << p.body;
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(p.json().value("id", "").rfind("chatcmpl-", 0), 0u) << p.body;
  auto s = summarize(r.events);
  ASSERT_FALSE(s.chunks.empty());
  EXPECT_EQ(s.chunks[0].value("id", "").rfind("chatcmpl-", 0), 0u) << s.raw[0];
}

TEST_P(VendorParityTest, PlainAnswerHasTheFakesTextAndUsage) {
  const json messages = user_messages("plain  text\n " + marker("plain") + " end ");
  const auto r = plain(request(alias(), messages));
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.json();
  const std::string reply = fake_reply(messages);
  EXPECT_EQ(body["choices"][0]["message"]["content"], reply);
  EXPECT_EQ(body["usage"], fake_usage(messages, reply)) << r.body;
}

TEST_P(VendorParityTest, SystemAndMultiTurnConversationGivesOpenAisTextAndUsage) {
  const json messages = json::array({{{"role", "system"}, {"content", "You are a careful test assistant."}},
                                     {{"role", "user"}, {"content", "first question " + marker("multi")}},
                                     {{"role", "assistant"}, {"content", "echo: first answer here"}},
                                     {{"role", "user"}, {"content", "second  question, longer one"}}});
  json reference = openai_answer(messages);
  const auto r = plain(request(alias(), messages));
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.json();
  EXPECT_EQ(body["choices"][0]["message"]["content"], reference["choices"][0]["message"]["content"]);
  EXPECT_EQ(body["choices"][0]["message"]["content"], "echo: second question, longer one");
  EXPECT_EQ(body["usage"], reference["usage"]) << r.body;
  EXPECT_EQ(body["usage"], fake_usage(messages, "echo: second question, longer one"));
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

TEST_P(VendorParityTest, StreamChunksAreChatCompletionChunksNamingTheAlias) {
  const auto r = streamed(request(alias(), user_messages("chunks a b c " + marker("chunks")), true));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("text/event-stream", 0), 0u) << r.header("content-type");
  auto s = summarize(r.events);
  EXPECT_TRUE(s.all_json);
  ASSERT_GE(s.chunks.size(), 3u);
  const std::string id = r.header("x-request-id");
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    json& c = s.chunks[i];
    EXPECT_EQ(c["object"], "chat.completion.chunk") << s.raw[i];
    EXPECT_EQ(c["model"], alias()) << s.raw[i];
    EXPECT_EQ(c["request_id"], id) << s.raw[i];
    EXPECT_TRUE(c["id"].is_string()) << s.raw[i];
    EXPECT_EQ(c["id"], s.chunks[0]["id"]) << "every chunk shares one id: " << s.raw[i];
    EXPECT_TRUE(c["created"].is_number_integer()) << s.raw[i];
    EXPECT_EQ(c["created"], s.chunks[0]["created"]) << s.raw[i];
  }
}

TEST_P(VendorParityTest, StreamChunksHaveTheSameTopLevelKeysAsOpenAi) {
  const json messages = user_messages("chunk keys " + marker("chunkkeys"));
  const auto reference = streamed(request("gpt", messages, true));
  const auto r = streamed(request(alias(), messages, true));
  ASSERT_EQ(reference.status, 200);
  ASSERT_EQ(r.status, 200) << r.body;
  auto ref = summarize(reference.events);
  auto s = summarize(r.events);
  ASSERT_FALSE(ref.chunks.empty());
  ASSERT_FALSE(s.chunks.empty());
  // The content chunks, and the final usage chunk.
  // system_fingerprint is optional in the schema (a vendor without one omits it).
  const auto keys = [](json chunk) {
    chunk.erase("system_fingerprint");
    return join(keys_of(chunk));
  };
  EXPECT_EQ(keys(s.chunks.front()), keys(ref.chunks.front())) << s.raw.front();
  ASSERT_TRUE(s.usage_chunk && ref.usage_chunk);
  EXPECT_EQ(keys(*s.usage_chunk), keys(*ref.usage_chunk)) << s.usage_chunk->dump();
}

TEST_P(VendorParityTest, StreamFirstDeltaHasTheAssistantRole) {
  const auto r = streamed(request(alias(), user_messages("role " + marker("role")), true));
  ASSERT_EQ(r.status, 200) << r.body;
  auto s = summarize(r.events);
  ASSERT_FALSE(s.chunks.empty());
  ASSERT_FALSE(s.chunks[0]["choices"].empty()) << s.raw[0];
  EXPECT_EQ(s.chunks[0]["choices"][0]["delta"]["role"], "assistant") << s.raw[0];
}

TEST_P(VendorParityTest, StreamContentEqualsThePlainText) {
  const json messages = user_messages("stream   equals plain " + marker("equal") + " x y z");
  const auto p = plain(request(alias(), messages));
  const auto r = streamed(request(alias(), messages, true));
  ASSERT_EQ(p.status, 200) << p.body;
  ASSERT_EQ(r.status, 200) << r.body;
  auto s = summarize(r.events);
  EXPECT_EQ(s.content, p.json()["choices"][0]["message"]["content"]);
  EXPECT_EQ(s.content, fake_reply(messages));
  EXPECT_EQ(finish_reasons(s.chunks), std::vector<std::string>{"stop"});
  EXPECT_FALSE(s.error.has_value());
}

TEST_P(VendorParityTest, StreamEndsWithAUsageChunkThenDone) {
  const json messages = user_messages("usage at the end " + marker("streamusage"));
  const auto r = streamed(request(alias(), messages, true));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.error.empty()) << r.error;
  auto s = summarize(r.events);
  ASSERT_TRUE(s.usage_chunk.has_value()) << "no chunk with choices [] and usage";
  EXPECT_EQ((*s.usage_chunk)["usage"], fake_usage(messages, fake_reply(messages)));
  ASSERT_GE(r.events.size(), 2u);
  EXPECT_EQ(json::parse(r.events[r.events.size() - 2].data)["choices"], json::array())
      << "the usage chunk comes right before [DONE]";
  EXPECT_TRUE(s.done_last);
  EXPECT_EQ(s.done_count, 1);
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

TEST_P(VendorToolParityTest, ToolsRequestIsAnsweredWithAToolCall) {
  const std::string question = "weather please " + marker("tools");
  json body = request(alias(), user_messages(question));
  body["tools"] = lookup_tools();
  const auto r = plain(body);
  ASSERT_EQ(r.status, 200) << r.body;
  json answer = r.json();
  json& choice = answer["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls") << r.body;
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_TRUE(choice["message"].value("content", json()).is_null()) << "no text beside the call: " << r.body;
  ASSERT_TRUE(choice["message"]["tool_calls"].is_array() && choice["message"]["tool_calls"].size() == 1)
      << r.body;
  json& call = choice["message"]["tool_calls"][0];
  EXPECT_TRUE(call["id"].is_string() && !call["id"].get<std::string>().empty()) << r.body;
  EXPECT_EQ(call["type"], "function");
  EXPECT_EQ(call["function"]["name"], kToolName);
  ASSERT_TRUE(call["function"]["arguments"].is_string()) << "arguments is JSON text: " << r.body;
  const json arguments = json::parse(call["function"]["arguments"].get<std::string>(), nullptr, false);
  EXPECT_EQ(arguments, json({{"query", question}})) << r.body;
  EXPECT_EQ(answer["usage"], fake_usage(body["messages"], fake_reply(body["messages"]))) << r.body;
}

TEST_P(VendorToolParityTest, StreamedToolCallArgumentsConcatenateToJson) {
  const std::string question = "streamed weather please " + marker("streamtools");
  json body = request(alias(), user_messages(question), true);
  body["tools"] = lookup_tools();
  const auto r = streamed(body);
  ASSERT_EQ(r.status, 200) << r.body;
  auto s = summarize(r.events);
  EXPECT_TRUE(s.all_json);
  EXPECT_EQ(s.content, "") << "a tool call streams no text";
  EXPECT_EQ(s.chunks.at(0)["choices"][0]["delta"]["role"], "assistant");
  const auto calls = accumulate_tool_calls(s.chunks);
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_TRUE(calls.count(0)) << "the first call has index 0";
  const StreamedToolCall& call = calls.at(0);
  EXPECT_FALSE(call.id.empty());
  EXPECT_EQ(call.type, "function");
  EXPECT_EQ(call.name, kToolName);
  const json arguments = json::parse(call.arguments, nullptr, false);
  EXPECT_EQ(arguments, json({{"query", question}})) << "arguments: " << call.arguments;
  EXPECT_EQ(finish_reasons(s.chunks), std::vector<std::string>{"tool_calls"});
  ASSERT_TRUE(s.usage_chunk.has_value());
  EXPECT_EQ((*s.usage_chunk)["usage"], fake_usage(body["messages"], fake_reply(body["messages"])));
  EXPECT_TRUE(s.done_last);
}

TEST_P(VendorParityTest, ToolDefinitionsReachTheVendorInItsFormat) {
  const std::string mark = marker("tooldefs");
  json body = request(alias(), user_messages("definitions " + mark));
  body["tools"] = lookup_tools();
  ASSERT_EQ(plain(body).status, 200);
  json sent = upstream_request(mark)["body"];
  const json parameters = lookup_tools()[0]["function"]["parameters"];
  if (vendor().provider == "openai") {
    EXPECT_EQ(sent["tools"], lookup_tools()) << sent.dump();
  } else if (vendor().provider == "anthropic") {
    ASSERT_TRUE(sent["tools"].is_array() && sent["tools"].size() == 2) << sent.dump();
    EXPECT_EQ(sent["tools"][0]["name"], kToolName);
    EXPECT_EQ(sent["tools"][0]["input_schema"], parameters);
    EXPECT_EQ(sent["tools"][0]["description"], "Looks up the weather for a query.");
  } else {
    ASSERT_TRUE(sent["tools"].is_array() && !sent["tools"].empty()) << sent.dump();
    json& declarations = sent["tools"][0]["functionDeclarations"];
    ASSERT_TRUE(declarations.is_array() && declarations.size() == 2) << sent.dump();
    EXPECT_EQ(declarations[0]["name"], kToolName);
    EXPECT_EQ(declarations[0]["parameters"], parameters);
  }
}

TEST_P(VendorParityTest, ToolResultFollowUpIsAcceptedAndSentInTheVendorsFormat) {
  const std::string mark = marker("toolresult");
  const json messages = tool_result_conversation(mark);
  json body = request(alias(), messages);
  body["tools"] = lookup_tools();
  const auto r = plain(body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["choices"][0]["finish_reason"], "stop") << "after a tool result the answer is text";

  json sent = upstream_request(mark)["body"];
  const json arguments = {{"query", "weather in Paris " + mark}};
  if (vendor().provider == "openai") {
    EXPECT_EQ(sent["messages"], messages) << "forwarded as sent";
  } else if (vendor().provider == "anthropic") {
    ASSERT_TRUE(sent["messages"].is_array() && sent["messages"].size() == 3) << sent.dump();
    json& assistant = sent["messages"][1];
    EXPECT_EQ(assistant["role"], "assistant");
    ASSERT_TRUE(assistant["content"].is_array() && !assistant["content"].empty()) << sent.dump();
    json& tool_use = assistant["content"].back();
    EXPECT_EQ(tool_use["type"], "tool_use");
    EXPECT_EQ(tool_use["id"], "call_parity_1");
    EXPECT_EQ(tool_use["name"], kToolName);
    EXPECT_EQ(tool_use["input"], arguments);
    json& result_turn = sent["messages"][2];
    EXPECT_EQ(result_turn["role"], "user");
    ASSERT_TRUE(result_turn["content"].is_array() && !result_turn["content"].empty()) << sent.dump();
    json& result = result_turn["content"][0];
    EXPECT_EQ(result["type"], "tool_result");
    EXPECT_EQ(result["tool_use_id"], "call_parity_1");
    EXPECT_NE(result["content"].dump().find("sunny, 21 C " + mark), std::string::npos) << result.dump();
  } else {
    ASSERT_TRUE(sent["contents"].is_array() && sent["contents"].size() == 3) << sent.dump();
    json& model_turn = sent["contents"][1];
    EXPECT_EQ(model_turn["role"], "model");
    ASSERT_TRUE(model_turn["parts"].is_array() && !model_turn["parts"].empty()) << sent.dump();
    EXPECT_EQ(model_turn["parts"][0]["functionCall"]["name"], kToolName);
    EXPECT_EQ(model_turn["parts"][0]["functionCall"]["args"], arguments);
    json& result_turn = sent["contents"][2];
    EXPECT_EQ(result_turn["role"], "user");
    ASSERT_TRUE(result_turn["parts"].is_array() && !result_turn["parts"].empty()) << sent.dump();
    json& response = result_turn["parts"][0]["functionResponse"];
    EXPECT_EQ(response["name"], kToolName);
    EXPECT_NE(response["response"].dump().find("sunny, 21 C " + mark), std::string::npos) << response.dump();
  }
}

TEST_P(VendorParityTest, StreamedToolResultFollowUpIsAccepted) {
  const std::string mark = marker("streamtoolresult");
  json body = request(alias(), tool_result_conversation(mark), true);
  body["tools"] = lookup_tools();
  const auto r = streamed(body);
  ASSERT_EQ(r.status, 200) << r.body;
  auto s = summarize(r.events);
  EXPECT_FALSE(s.error.has_value()) << s.error->dump();
  EXPECT_TRUE(s.usage_chunk.has_value());
  EXPECT_TRUE(s.done_last);
  EXPECT_EQ(finish_reasons(s.chunks), std::vector<std::string>{"stop"});
}

// ---------------------------------------------------------------------------
// What reaches the vendor
// ---------------------------------------------------------------------------

TEST_P(VendorParityTest, UpstreamRequestUsesTheVendorsPathAndCredentials) {
  const std::string mark = marker("wire");
  ASSERT_EQ(plain(request(alias(), user_messages("wire " + mark))).status, 200);
  json sent = upstream_request(mark);
  json& headers = sent["headers"];
  EXPECT_EQ(sent["method"], "POST");
  if (vendor().provider == "openai") {
    EXPECT_EQ(sent["path"], "/v1/chat/completions");
    EXPECT_EQ(headers["authorization"], std::string("Bearer ") + kProviderKey);
    EXPECT_EQ(sent["body"]["model"], vendor().model);
  } else if (vendor().provider == "anthropic") {
    EXPECT_EQ(sent["path"], "/v1/messages");
    EXPECT_EQ(headers["x-api-key"], kProviderKey);
    EXPECT_TRUE(headers.contains("anthropic-version")) << headers.dump();
    EXPECT_FALSE(headers.contains("authorization")) << headers.dump();
    EXPECT_EQ(sent["body"]["model"], vendor().model);
    EXPECT_TRUE(sent["body"]["max_tokens"].is_number_integer() && sent["body"]["max_tokens"].get<long>() > 0)
        << "Anthropic requires max_tokens even when the client sent none: " << sent["body"].dump();
    EXPECT_EQ(sent["body"]["messages"], user_messages("wire " + mark));
  } else {
    EXPECT_EQ(sent["path"], "/v1beta/models/" + vendor().model + ":generateContent");
    EXPECT_EQ(sent["query"], "");
    EXPECT_EQ(headers["x-goog-api-key"], kProviderKey);
    EXPECT_FALSE(headers.contains("authorization")) << headers.dump();
    EXPECT_EQ(sent["body"]["contents"],
              json::array({{{"role", "user"}, {"parts", json::array({{{"text", "wire " + mark}}})}}}));
  }
  EXPECT_FALSE(sent["body"].contains("request_id")) << sent["body"].dump();
  EXPECT_EQ(sent.dump().find(key()), std::string::npos) << "the client's key stays in the gateway";
}

TEST_P(VendorParityTest, StreamedUpstreamRequestUsesTheVendorsStreamingCall) {
  const std::string mark = marker("streamwire");
  ASSERT_EQ(streamed(request(alias(), user_messages("stream wire " + mark), true)).status, 200);
  json sent = upstream_request(mark);
  if (vendor().provider == "gemini") {
    EXPECT_EQ(sent["path"], "/v1beta/models/" + vendor().model + ":streamGenerateContent");
    EXPECT_EQ(sent["query"], "alt=sse");
    EXPECT_EQ(sent["headers"]["x-goog-api-key"], kProviderKey);
    EXPECT_FALSE(sent["body"].contains("stream")) << sent["body"].dump();
  } else {
    EXPECT_EQ(sent["body"]["stream"], true) << sent["body"].dump();
  }
  if (vendor().provider == "anthropic") {
    EXPECT_EQ(sent["path"], "/v1/messages");
    EXPECT_TRUE(sent["body"]["max_tokens"].is_number_integer()) << sent["body"].dump();
  }
}

TEST_P(VendorParityTest, SamplingParametersReachTheVendorUnderItsOwnNames) {
  const std::string mark = marker("sampling");
  json body = request(alias(), user_messages("sampling " + mark));
  body["temperature"] = 0.5;
  body["top_p"] = 0.75;
  body["stop"] = json::array({"STOPHERE", "ENDHERE"});
  body["max_tokens"] = 77;
  ASSERT_EQ(plain(body).status, 200);
  json sent = upstream_request(mark)["body"];
  if (vendor().provider == "openai") {
    EXPECT_EQ(sent["temperature"], 0.5);
    EXPECT_EQ(sent["top_p"], 0.75);
    EXPECT_EQ(sent["stop"], body["stop"]);
    EXPECT_EQ(sent["max_tokens"], 77);
  } else if (vendor().provider == "anthropic") {
    EXPECT_EQ(sent["temperature"], 0.5);
    EXPECT_EQ(sent["top_p"], 0.75);
    EXPECT_EQ(sent["stop_sequences"], body["stop"]);
    EXPECT_EQ(sent["max_tokens"], 77);
    EXPECT_FALSE(sent.contains("stop")) << sent.dump();
  } else {
    json& config = sent["generationConfig"];
    EXPECT_EQ(config["temperature"], 0.5) << sent.dump();
    EXPECT_EQ(config["topP"], 0.75);
    EXPECT_EQ(config["stopSequences"], body["stop"]);
    EXPECT_EQ(config["maxOutputTokens"], 77);
    for (const char* openai_name : {"temperature", "top_p", "stop", "max_tokens"}) {
      EXPECT_FALSE(sent.contains(openai_name)) << openai_name << " at the top: " << sent.dump();
    }
  }
}

TEST_P(VendorParityTest, ImagePartReachesTheVendorAsItsImageBlock) {
  const std::string mark = marker("image");
  const std::string url = std::string("data:image/png;base64,") + kPngBase64;
  const json messages =
      json::array({{{"role", "user"},
                    {"content", json::array({{{"type", "text"}, {"text", "describe " + mark}},
                                             {{"type", "image_url"}, {"image_url", {{"url", url}}}}})}}});
  const auto r = plain(request(alias(), messages));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["choices"][0]["message"]["content"], "echo: describe " + mark);

  json sent = upstream_request(mark)["body"];
  if (vendor().provider == "openai") {
    EXPECT_EQ(sent["messages"], messages);
  } else if (vendor().provider == "anthropic") {
    json& content = sent["messages"][0]["content"];
    ASSERT_TRUE(content.is_array() && content.size() == 2) << sent.dump();
    EXPECT_EQ(content[0], json({{"type", "text"}, {"text", "describe " + mark}}));
    EXPECT_EQ(content[1],
              json({{"type", "image"},
                    {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", kPngBase64}}}}));
  } else {
    json& parts = sent["contents"][0]["parts"];
    ASSERT_TRUE(parts.is_array() && parts.size() == 2) << sent.dump();
    EXPECT_EQ(parts[0], json({{"text", "describe " + mark}}));
    EXPECT_EQ(parts[1], json({{"inlineData", {{"mimeType", "image/png"}, {"data", kPngBase64}}}}));
  }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

TEST_P(VendorParityTest, RateLimitIs429WithAnIntegerRetryAfter) {
  for (const bool stream : {false, true}) {
    const auto s = streamed(request(alias("rate-limited"), user_messages("rate limited"), stream));
    const auto r = as_response(s);
    EXPECT_TRUE(IsApiError(r, 429, "rate_limit_error", "rate_limit_exceeded")) << "stream=" << stream;
    EXPECT_TRUE(is_integer_seconds(r.header("retry-after")))
        << "Retry-After '" << r.header("retry-after") << "'";
    EXPECT_EQ(r.header("retry-after"), "3") << "the vendor's hint is passed on";
  }
}

TEST_P(VendorParityTest, UpstreamServerErrorsAre502ProviderFailed) {
  for (const char* fault : {"err-500", "err-503", "err-529"}) {
    for (const bool stream : {false, true}) {
      const auto s = streamed(request(alias(fault), user_messages("server error"), stream));
      EXPECT_TRUE(IsApiError(as_response(s), 502, "api_error", "provider_failed"))
          << fault << " stream=" << stream;
    }
  }
}

TEST_P(VendorParityTest, ContextTooLongIs422ContextLengthExceeded) {
  for (const bool stream : {false, true}) {
    const auto s = streamed(request(alias("context"), user_messages("too long"), stream));
    EXPECT_TRUE(
        IsApiError(as_response(s), 422, "invalid_request_error", "context_length_exceeded", "messages"))
        << "stream=" << stream;
  }
}

TEST_P(VendorParityTest, VendorRejectingTheKeyIs502WithoutVendorTextOrKey) {
  for (const bool stream : {false, true}) {
    const auto s = streamed(request(alias("badkey"), user_messages("who am i"), stream));
    const auto r = as_response(s);
    EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed")) << "stream=" << stream;
    const std::string message = r.json()["error"].value("message", "");
    for (const char* vendor_text : {"Incorrect API key", "sk-ab", "invalid x-api-key", "x-api-key",
                                    "API key not valid", "API_KEY_INVALID", "authentication_error"}) {
      EXPECT_EQ(message.find(vendor_text), std::string::npos) << "'" << vendor_text << "' in: " << message;
    }
    EXPECT_EQ(r.body.find(vendor().wrong_key.substr(0, 12)), std::string::npos) << r.body;
  }
}

TEST_P(VendorParityTest, ErrorObjectWithStatus200FailsCleanly) {
  EXPECT_TRUE(IsApiError(plain(request(alias("error200"), user_messages("error200"))), 502, "api_error",
                         "provider_failed"));
  const json messages = user_messages("error200 streamed one two three");
  EXPECT_TRUE(
      IsCleanStreamFailure(streamed(request(alias("error200"), messages, true)), fake_reply(messages)));
}

TEST_P(VendorParityTest, HtmlErrorPageIs502WithoutTheHtml) {
  for (const bool stream : {false, true}) {
    const auto s = streamed(request(alias("html"), user_messages("html"), stream));
    EXPECT_TRUE(IsApiError(as_response(s), 502, "api_error", "provider_failed")) << "stream=" << stream;
    EXPECT_EQ(s.body.find("<html"), std::string::npos) << s.body;
    EXPECT_EQ(s.body.find("Bad Gateway</h1>"), std::string::npos) << s.body;
  }
}

TEST_P(VendorParityTest, GarbageBodyFailsCleanly) {
  EXPECT_TRUE(IsApiError(plain(request(alias("garbage"), user_messages("garbage"))), 502, "api_error",
                         "provider_failed"));
  const json messages = user_messages("garbage streamed");
  EXPECT_TRUE(
      IsCleanStreamFailure(streamed(request(alias("garbage"), messages, true)), fake_reply(messages)));
}

TEST_P(VendorParityTest, CutPlainBodyIs502) {
  EXPECT_TRUE(IsApiError(plain(request(alias("cut-2"), user_messages("cut plain one two"))), 502, "api_error",
                         "provider_failed"));
}

TEST_P(VendorParityTest, CutStreamEndsWithAnErrorEventAndNoDone) {
  const json messages = user_messages("cut one two three four five");
  const auto started = Clock::now();
  const auto r = streamed(request(alias("cut-2"), messages, true));
  EXPECT_LT(Clock::now() - started, 10s) << "a cut stream must end promptly";
  ASSERT_EQ(r.status, 200) << "the cut comes after the first chunks: " << r.body;
  EXPECT_TRUE(IsCleanStreamFailure(r, fake_reply(messages)));
  auto s = summarize(r.events);
  EXPECT_GE(s.deltas.size(), 1u) << "what came before the cut is relayed";
  EXPECT_LE(s.deltas.size(), 2u);
}

TEST_P(VendorParityTest, SplitStreamDecodesExactly) {
  const json messages = user_messages("split into tiny fragments " + marker("split"));
  const auto r = streamed(request(alias("split"), messages, true));
  ASSERT_EQ(r.status, 200) << r.body;
  auto s = summarize(r.events);
  EXPECT_TRUE(s.all_json);
  EXPECT_EQ(s.content, fake_reply(messages));
  ASSERT_TRUE(s.usage_chunk.has_value());
  EXPECT_EQ((*s.usage_chunk)["usage"], fake_usage(messages, fake_reply(messages)));
  EXPECT_EQ(finish_reasons(s.chunks), std::vector<std::string>{"stop"});
  EXPECT_TRUE(s.done_last);
  EXPECT_EQ(s.done_count, 1);
}

TEST_P(VendorParityTest, StreamWithCommentsDecodesExactly) {
  const json messages = user_messages("comments between events " + marker("comments"));
  const auto r = streamed(request(alias("comments"), messages, true));
  ASSERT_EQ(r.status, 200) << r.body;
  auto s = summarize(r.events);
  EXPECT_TRUE(s.all_json);
  EXPECT_EQ(s.content, fake_reply(messages));
  ASSERT_TRUE(s.usage_chunk.has_value());
  EXPECT_EQ((*s.usage_chunk)["usage"], fake_usage(messages, fake_reply(messages)));
  EXPECT_EQ(finish_reasons(s.chunks), std::vector<std::string>{"stop"});
  EXPECT_TRUE(s.done_last);
  EXPECT_EQ(s.done_count, 1);
}

// ---------------------------------------------------------------------------
// Usage records and the log
// ---------------------------------------------------------------------------

TEST_P(VendorParityTest, UsageRecordsHaveTheSameTokenNumbers) {
  const json messages =
      json::array({{{"role", "system"}, {"content", "Count me."}},
                   {{"role", "user"}, {"content", "record these tokens " + marker("record")}}});
  const json expected = fake_usage(messages, fake_reply(messages));
  const auto p = plain(request(alias(), messages));
  const auto r = streamed(request(alias(), messages, true));
  ASSERT_EQ(p.status, 200) << p.body;
  ASSERT_EQ(r.status, 200) << r.body;
  for (const auto& [id, streamed_call] :
       {std::pair{p.header("x-request-id"), false}, std::pair{r.header("x-request-id"), true}}) {
    const auto record = stack().usage().wait_for(id);
    ASSERT_TRUE(record.has_value()) << "no usage record for " << id;
    EXPECT_EQ(record->alias, alias());
    EXPECT_EQ(record->provider, vendor().provider);
    EXPECT_EQ(record->upstream_model, vendor().model);
    EXPECT_EQ(record->http_status, 200);
    EXPECT_EQ(record->streamed, streamed_call ? 1 : 0);
    EXPECT_EQ(record->prompt_tokens, expected["prompt_tokens"].get<std::int64_t>())
        << "streamed=" << streamed_call;
    EXPECT_EQ(record->completion_tokens, expected["completion_tokens"].get<std::int64_t>())
        << "streamed=" << streamed_call;
    EXPECT_EQ(record->total_tokens, expected["total_tokens"].get<std::int64_t>())
        << "streamed=" << streamed_call;
  }
}

// Defined last, so it runs after every other test of the suite: by then the
// log holds every fault above (and it makes its own traffic when run alone).
TEST_P(VendorParityTest, ZzGatewayLogHoldsNoProviderKey) {
  plain(request(alias("badkey"), user_messages("log bad key")));
  streamed(request(alias("badkey"), user_messages("log bad key"), true));
  streamed(request(alias("cut-2"), user_messages("log cut a b c"), true));
  plain(request(alias("html"), user_messages("log html")));
  const auto last = plain(request(alias(), user_messages("log last " + marker("log"))));
  ASSERT_EQ(last.status, 200) << last.body;
  ASSERT_TRUE(stack().gateway->wait_log(last.header("x-request-id"), 5s)) << stack().gateway->log();
  const std::string log = stack().gateway->log();
  EXPECT_EQ(log.find(kProviderKey), std::string::npos);
  EXPECT_EQ(log.find(std::string(kProviderKey).substr(0, 16)), std::string::npos);
  for (const auto& v : vendors()) {
    EXPECT_EQ(log.find(v.wrong_key), std::string::npos) << v.alias;
    EXPECT_EQ(log.find(v.wrong_key.substr(0, 16)), std::string::npos) << v.alias;
  }
  EXPECT_EQ(log.find(key()), std::string::npos) << "the client's key";
}

INSTANTIATE_TEST_SUITE_P(VendorParity, VendorParityTest, ::testing::ValuesIn(vendors()),
                         [](const ::testing::TestParamInfo<Vendor>& info) { return info.param.alias; });
INSTANTIATE_TEST_SUITE_P(VendorParity, VendorToolParityTest, ::testing::ValuesIn(translating_vendors()),
                         [](const ::testing::TestParamInfo<Vendor>& info) { return info.param.alias; });

}  // namespace
}  // namespace it
