// Named prompts end to end: registered over the internal surface (and the
// CLI), read with GET /v1/prompts/{name}, invoked from chat with variables,
// versions and activation, and every refusal in the error envelope.
#include "harness/checks.h"
#include "harness/stack.h"

#include <fstream>
#include <thread>

namespace it {
namespace {

class PromptsTest : public SharedStackTest<PromptsTest> {
 protected:
  static const std::string& admin_key() {
    static const std::string k = stack().gateway->create_key("acme", "admin").key;
    return k;
  }
  static const std::string& reader_key() {
    static const std::string k = stack().gateway->create_key("acme", "chat prompts:read").key;
    return k;
  }
  static HttpResponse admin(const std::string& method, const std::string& path,
                            const std::string& body = "") {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = body;
    r.headers.emplace_back("Authorization", "Bearer " + admin_key());
    return http_call(port(), r);
  }
  // Registers a version of `name` for tenant acme; returns the answer's JSON.
  static json add_version(const std::string& name, const json& spec) {
    auto r = admin("POST", "/internal/v1/tenants/acme/prompts/" + name + "/versions", spec.dump());
    EXPECT_EQ(r.status, 201) << r.body;
    return r.json();
  }
  static json support_spec(const std::string& marker) {
    return json{{"template",
                 {{{"role", "system"}, {"content", "Answer in a {{tone}} tone. " + marker}},
                  {{"role", "user"}, {"content", "Customer {{ customer }} asks: {{question}}"}}}},
                {"model", "house-chat"},
                {"parameters", {{"temperature", 0.2}, {"max_tokens", 50}}}};
  }
};

TEST_F(PromptsTest, RegisteredPromptIsReadableByName) {
  auto v1 = add_version("support", support_spec("read-marker"));
  EXPECT_EQ(v1["version"], 1);
  EXPECT_EQ(v1["active"], true) << "a prompt's first version is active";
  auto r = http_get(port(), "/v1/prompts/support", reader_key());
  ASSERT_EQ(r.status, 200) << r.body;
  const json p = r.json();
  EXPECT_EQ(p["object"], "prompt");
  EXPECT_EQ(p["name"], "support");
  EXPECT_EQ(p["version"], 1);
  EXPECT_EQ(p["active"], true);
  EXPECT_EQ(p["template"], support_spec("read-marker")["template"]);
  EXPECT_EQ(p["variables"], json::array({"tone", "customer", "question"}));
  EXPECT_EQ(p["model"], "house-chat");
  EXPECT_EQ(p["parameters"], support_spec("")["parameters"]);
  EXPECT_TRUE(p["created_at"].is_number_integer());
  EXPECT_EQ(p["request_id"], r.header("x-request-id"));
}

TEST_F(PromptsTest, GetPromptErrors) {
  add_version("errs", support_spec("errs"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/prompts/never-registered", reader_key()), 404,
                         "invalid_request_error", "prompt_not_found"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/prompts/errs?version=9", reader_key()), 404,
                         "invalid_request_error", "prompt_not_found", "version"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/prompts/errs?version=zero", reader_key()), 400,
                         "invalid_request_error", "invalid_parameter", "version"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/prompts/errs", key()), 403, "authentication_error",
                         "permission_denied"))
      << "reading prompts needs prompts:read";
  EXPECT_TRUE(
      IsApiError(http_get(port(), "/v1/prompts/errs"), 401, "authentication_error", "missing_api_key"));
}

TEST_F(PromptsTest, ChatFillsTheTemplateAndAppliesTheRegisteredModelAndParameters) {
  add_version("fill", support_spec("fill-marker-1"));
  json body = {
      {"prompt",
       {{"name", "fill"},
        {"variables", {{"tone", "formal"}, {"customer", "Ana"}, {"question", "Where is my order?"}}}}},
      {"messages", {{{"role", "user"}, {"content", "Also: thanks!"}}}}};
  auto r = post_chat(port(), key(), body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["model"], "house-chat") << "the prompt's model serves when the request names none";

  const json sent = stack().fake->find_request("fill-marker-1");
  ASSERT_TRUE(sent.is_object());
  const json expected_messages = {{{"role", "system"}, {"content", "Answer in a formal tone. fill-marker-1"}},
                                  {{"role", "user"}, {"content", "Customer Ana asks: Where is my order?"}},
                                  {{"role", "user"}, {"content", "Also: thanks!"}}};
  EXPECT_EQ(sent["body"]["messages"], expected_messages) << "template first, then the request's own messages";
  EXPECT_EQ(sent["body"]["temperature"], 0.2);
  EXPECT_EQ(sent["body"]["max_tokens"], 50);
  EXPECT_FALSE(sent["body"].contains("prompt")) << "the prompt object is the gateway's, not the vendor's";

  auto record = stack().usage().wait_for(r.header("x-request-id"));
  ASSERT_TRUE(record);
  EXPECT_EQ(record->prompt_name, "fill");
  EXPECT_EQ(record->prompt_version, 1);
}

TEST_F(PromptsTest, RequestValuesOverrideTheRegisteredOnes) {
  add_version("override", support_spec("override-marker"));
  json body = {
      {"model", "gpt-4o-mini"},
      {"temperature", 0.9},
      {"prompt",
       {{"id", "override"}, {"variables", {{"tone", "dry"}, {"customer", "Bo"}, {"question", "q"}}}}}};
  auto r = post_chat(port(), key(), body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["model"], "gpt-4o-mini");
  const json sent = stack().fake->find_request("override-marker");
  EXPECT_EQ(sent["body"]["temperature"], 0.9);
  EXPECT_EQ(sent["body"]["max_tokens"], 50) << "what the request leaves out still comes from the prompt";
}

TEST_F(PromptsTest, ValuesArePlainTextAndNeverExpandedAgain) {
  add_version("plain", support_spec("plain-marker"));
  json body = {{"prompt",
                {{"name", "plain"},
                 {"variables", {{"tone", "{{question}}"}, {"customer", 42}, {"question", "why?"}}}}}};
  ASSERT_EQ(post_chat(port(), key(), body.dump()).status, 200);
  const json sent = stack().fake->find_request("plain-marker");
  EXPECT_EQ(sent["body"]["messages"][0]["content"], "Answer in a {{question}} tone. plain-marker");
  EXPECT_EQ(sent["body"]["messages"][1]["content"], "Customer 42 asks: why?");
}

TEST_F(PromptsTest, MissingVariableIs422NamingIt) {
  add_version("missing", support_spec("missing-marker"));
  json body = {{"prompt", {{"name", "missing"}, {"variables", {{"tone", "calm"}, {"customer", "Cy"}}}}}};
  auto r = post_chat(port(), key(), body.dump());
  EXPECT_TRUE(
      IsApiError(r, 422, "invalid_request_error", "prompt_variable_missing", "prompt.variables.question"))
      << r.body;
  EXPECT_TRUE(stack().fake->find_request("missing-marker").is_null()) << "nothing may reach the upstream";
}

TEST_F(PromptsTest, UnknownPromptOrVersionIs404) {
  add_version("known", support_spec("known-marker"));
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), R"({"prompt":{"name":"unknown-one"}})"), 404,
                         "invalid_request_error", "prompt_not_found", "prompt.name"));
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), R"({"prompt":{"name":"known","version":5}})"), 404,
                         "invalid_request_error", "prompt_not_found", "prompt.version"));
}

TEST_F(PromptsTest, MalformedPromptObjectsAre400) {
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), R"({"prompt":"support"})"), 400, "invalid_request_error",
                         "invalid_parameter", "prompt"));
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), R"({"prompt":{}})"), 400, "invalid_request_error",
                         "missing_required_field", "prompt.name"));
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), R"({"prompt":{"name":"x","version":-1}})"), 400,
                         "invalid_request_error", "invalid_parameter", "prompt.version"));
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), R"({"prompt":{"name":"x","variables":{"a":[1]}}})"), 400,
                         "invalid_request_error", "invalid_parameter", "prompt.variables.a"));
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), R"({"prompt":{"name":"x","colour":1}})"), 400,
                         "invalid_request_error", "invalid_parameter", "prompt.colour"));
}

TEST_F(PromptsTest, VersionsAreImmutableAndActivationSwitchesAtOnce) {
  add_version("versions", support_spec("v1-marker"));
  auto v2 = add_version("versions", support_spec("v2-marker"));
  EXPECT_EQ(v2["version"], 2);
  EXPECT_EQ(v2["active"], false) << "a later version waits for activation";
  const json vars = {{"tone", "t"}, {"customer", "c"}, {"question", "q"}};
  auto chat = [&](const json& prompt) { return post_chat(port(), key(), json{{"prompt", prompt}}.dump()); };

  ASSERT_EQ(chat({{"name", "versions"}, {"variables", vars}}).status, 200);
  EXPECT_FALSE(stack().fake->find_request("v1-marker").is_null()) << "the active version (1) serves";
  EXPECT_TRUE(stack().fake->find_request("v2-marker").is_null());

  auto pinned = chat({{"name", "versions"}, {"version", 2}, {"variables", vars}});
  ASSERT_EQ(pinned.status, 200);
  EXPECT_FALSE(stack().fake->find_request("v2-marker").is_null()) << "a pinned version serves";
  EXPECT_EQ(stack().usage().wait_for(pinned.header("x-request-id"))->prompt_version, 2);

  auto activated = admin("POST", "/internal/v1/tenants/acme/prompts/versions/versions/2/activate");
  ASSERT_EQ(activated.status, 200) << activated.body;
  EXPECT_EQ(activated.json()["active"], true);
  auto after = chat({{"name", "versions"}, {"variables", vars}});
  ASSERT_EQ(after.status, 200);
  EXPECT_EQ(stack().usage().wait_for(after.header("x-request-id"))->prompt_version, 2)
      << "activation through the internal surface takes effect at once";
  EXPECT_EQ(http_get(port(), "/v1/prompts/versions", reader_key()).json()["version"], 2);

  auto all = admin("GET", "/internal/v1/tenants/acme/prompts/versions").json()["data"];
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]["template"], support_spec("v1-marker")["template"]) << "version 1 is unchanged";
  EXPECT_EQ(all[0]["active"], false);
  EXPECT_TRUE(IsApiError(admin("POST", "/internal/v1/tenants/acme/prompts/versions/versions/7/activate"), 404,
                         "invalid_request_error", "prompt_not_found", "version"));
}

TEST_F(PromptsTest, BadTemplatesAndSpecsAreRefusedAtRegistration) {
  auto spec = support_spec("bad");
  spec["template"][0]["content"] = "Hello {{name";
  EXPECT_TRUE(IsApiError(admin("POST", "/internal/v1/tenants/acme/prompts/bad/versions", spec.dump()), 400,
                         "invalid_request_error", "invalid_parameter", "template[0].content"));
  spec["template"][0]["content"] = "Hello {{first name}}";
  auto illegal = admin("POST", "/internal/v1/tenants/acme/prompts/bad/versions", spec.dump());
  EXPECT_TRUE(IsApiError(illegal, 400, "invalid_request_error", "invalid_parameter", "template[0].content"));
  EXPECT_NE(illegal.json()["error"]["message"].get<std::string>().find("not a valid placeholder"),
            std::string::npos);

  auto no_model = support_spec("bad");
  no_model["model"] = "not-in-catalog";
  EXPECT_TRUE(IsApiError(admin("POST", "/internal/v1/tenants/acme/prompts/bad/versions", no_model.dump()),
                         404, "invalid_request_error", "model_not_found", "model"));
  auto streaming = support_spec("bad");
  streaming["parameters"]["stream"] = true;
  EXPECT_TRUE(IsApiError(admin("POST", "/internal/v1/tenants/acme/prompts/bad/versions", streaming.dump()),
                         400, "invalid_request_error", "invalid_parameter", "parameters.stream"));
  EXPECT_TRUE(IsApiError(
      admin("POST", "/internal/v1/tenants/acme/prompts/bad%20name/versions", support_spec("x").dump()), 400,
      "invalid_request_error", "invalid_parameter", "name"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/prompts/bad", reader_key()), 404, "invalid_request_error",
                         "prompt_not_found"))
      << "nothing was stored by the refused registrations";
}

TEST_F(PromptsTest, StreamedChatWithAPromptRecordsItToo) {
  add_version("streamed", support_spec("stream-prompt-marker"));
  json body = {
      {"stream", true},
      {"prompt",
       {{"name", "streamed"}, {"variables", {{"tone", "t"}, {"customer", "c"}, {"question", "q"}}}}}};
  SseStream stream(port(), key(), body.dump());
  ASSERT_EQ(stream.status(), 200);
  std::vector<SseEvent> events;
  for (int i = 0; i < 1000; ++i) {
    auto e = stream.next();
    if (!e) break;
    events.push_back(*e);
  }
  auto summary = summarize(events);
  EXPECT_TRUE(summary.done_last);
  ASSERT_FALSE(summary.chunks.empty());
  EXPECT_EQ(summary.chunks[0]["model"], "house-chat");
  auto record = stack().usage().wait_for(summary.chunks[0]["request_id"].get<std::string>());
  ASSERT_TRUE(record);
  EXPECT_EQ(record->prompt_name, "streamed");
  EXPECT_EQ(record->streamed, 1);
}

TEST_F(PromptsTest, CliRegistersAndActivatesPrompts) {
  const std::string file = stack().gateway->dir() + "/cli-prompt.json";
  std::ofstream(file) << support_spec("cli-marker").dump();
  auto added = stack().gateway->cli({"prompts", "add", "--tenant", "acme", "cli-made", "--file", file});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(json::parse(added.out)["version"], 1);
  auto again = stack().gateway->cli({"prompts", "add", "--tenant", "acme", "cli-made", "--file", file});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto activated = stack().gateway->cli({"prompts", "activate", "--tenant", "acme", "cli-made", "2"});
  ASSERT_EQ(activated.exit_code, 0) << activated.err;
  auto listed = stack().gateway->cli({"prompts", "list", "--tenant", "acme"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("cli-made\t2\t2\thouse-chat"), std::string::npos) << listed.out;
  auto missing = stack().gateway->cli({"prompts", "activate", "--tenant", "acme", "cli-made", "9"});
  EXPECT_EQ(missing.exit_code, 2);
  // The running gateway sees the CLI's change within its cache TTL (100 ms here).
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  json seen;
  do {
    seen = http_get(port(), "/v1/prompts/cli-made", reader_key()).json();
    if (seen["version"] == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  } while (Clock::now() < deadline);
  EXPECT_EQ(seen["version"], 2);
}

}  // namespace
}  // namespace it
