// docs/openapi.yaml against the real binary: one stack (fake upstreams for
// every vendor, tenants with keys of each scope, a budget, a credit account,
// prompts, usage records) answers every documented operation, for success and
// for its main errors (401, 403, 400, 404, 405, 402, 413, 422, 429, 502, 504,
// Anthropic's envelope on /v1/messages*), streams included. Each answer
// (method, concrete path, status, content type, body) is written to a JSONL
// file, and tests/openapi/validate_answers.mjs checks every one against the
// document (tests/openapi/openapi_doc.mjs), every request the gateway
// accepted against the documented parameters and request body, and that
// every operation of the document was exercised. Also: GET /v1/openapi.json is the YAML document as
// JSON, with an ETag and 304 to a matching If-None-Match.
#include "harness/checks.h"
#include "harness/stack.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

fs::path openapi_repo_root() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path();
}

GatewayOptions openapi_stack_options() {
  GatewayOptions options;
  options.catalog.push_back({"claude", "anthropic", "claude-sonnet-4-5"});
  options.catalog.push_back({"gemini", "gemini", "gemini-2.5-flash"});
  options.catalog.push_back({"gpt-native", "openai-native", "gpt-4o-mini"});
  options.extra_catalog_yaml =
      "  emb: { provider: openai, model: text-embedding-3-small, kind: embedding, dimensions: 1536,"
      " prices: { input: 0.02, output: 0 } }\n"
      "  pricey: { provider: openai, model: \"gpt-4o-mini\", tokenizer: o200k_base, context_window: 128000,"
      " max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n";
  options.pii_yaml = "pii:\n  default_mode: flag\n";
  return options;
}

// Every answer of the run, one JSON object a line.
class AnswerLog {
 public:
  explicit AnswerLog(const fs::path& path) : out_(path) {}

  // `target`: the path and query as sent; `request_body`: what was sent ("" for none).
  void add(const std::string& method, const std::string& target, const std::string& request_body,
           const HttpResponse& r) {
    const auto q = target.find('?');
    json line = {{"method", method},
                 {"path", q == std::string::npos ? target : target.substr(0, q)},
                 {"target", target},
                 {"request_content_type", request_body.empty() ? "" : "application/json"},
                 {"request_body", request_body},
                 {"status", r.status},
                 {"content_type", r.header("content-type")},
                 {"body", r.body}};
    out_ << line.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    out_.flush();
    ++count_;
  }
  int count() const { return count_; }

 private:
  std::ofstream out_;
  int count_ = 0;
};

class OpenapiLiveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      stack_ = start_stack(openapi_stack_options());
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << error_; }

  static int port() { return stack_->port(); }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string error_;
};

// One request: method, path, body, headers; the answer recorded.
struct Exchange {
  AnswerLog& log;
  int port;

  HttpResponse operator()(const std::string& method, const std::string& path, const std::string& key,
                          const std::string& body = {}, Headers headers = {}) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = body;
    r.json_content_type = !body.empty();
    if (!key.empty()) r.headers.emplace_back("Authorization", "Bearer " + key);
    for (auto& h : headers) r.headers.push_back(std::move(h));
    const auto answer = http_call(port, r);
    log.add(method, path, body, answer);
    // What the document says of headers, beside the bodies the node script checks.
    const std::string what = method + " " + path + " -> " + std::to_string(answer.status);
    EXPECT_TRUE(is_request_id(answer.header("x-request-id"))) << what;
    if (answer.status == 405) {
      EXPECT_FALSE(answer.header("allow").empty()) << what;
    }
    if (answer.status == 429) {
      const std::string wait = answer.header("retry-after");
      EXPECT_TRUE(!wait.empty() && wait.find_first_not_of("0123456789") == std::string::npos) << what;
    }
    if (path.rfind("/v1/messages", 0) == 0) {
      EXPECT_EQ(answer.header("request-id"), answer.header("x-request-id")) << what;
    }
    const json answered = answer.json();
    if (answered.is_object() && answered.contains("request_id")) {
      EXPECT_EQ(answered["request_id"], answer.header("x-request-id")) << what;
    }
    if (answered.is_object() && answered.contains("error") && answered["error"].is_object()) {
      EXPECT_EQ(answered["error"].value("request_id", ""), answer.header("x-request-id")) << what;
    }
    return answer;
  }
  HttpResponse post(const std::string& path, const std::string& key, const json& body, Headers headers = {}) {
    return (*this)("POST", path, key, body.dump(), std::move(headers));
  }
};

json user_turn(const std::string& text) {
  return json::array({{{"role", "user"}, {"content", text}}});
}

TEST_F(OpenapiLiveTest, EveryAnswerOfEveryOperationMatchesTheDocument) {
  const fs::path root = openapi_repo_root();
  const fs::path node = find_on_path("node");
  ASSERT_FALSE(node.empty()) << "`node` is not on PATH";
  ASSERT_TRUE(fs::is_regular_file(root / "node_modules/ajv/package.json")) << "run `npm ci` at " << root;
  const fs::path answers = fs::path(stack_->gateway->dir()) / "openapi-answers.jsonl";
  AnswerLog log(answers);
  Exchange call{log, port()};
  const Gateway& gw = *stack_->gateway;

  const std::string chat = stack_->key.key;
  const std::string admin = gw.create_key("acme", "admin").key;
  const std::string reader = gw.create_key("acme", "prompts:read,usage:read,budgets:read,audit:read").key;
  const std::string bad_key = "sk-mgw-notakeyatall0000000000000000000";

  // ---- Admin surface: seed what the public reads need ---------------------
  const std::string t = "/internal/v1/tenants";
  ASSERT_EQ(call("GET", t, admin).status, 200);
  ASSERT_EQ(call.post(t, admin, {{"name", "globex"}}).status, 201);
  call.post(t, admin, json::object());         // 400 missing name
  call.post(t, admin, {{"name", "globex"}});   // 400 taken
  call("POST", t, admin, "{", {});             // 400 invalid_json
  call("GET", t, "");                          // 401
  call("GET", t, bad_key);                     // 401
  call("GET", t, chat);                        // 403
  call("PUT", t, admin);                       // 405
  call("GET", t + "/globex", admin);           // 200
  call("GET", t + "/nobody", admin);           // 404
  call("GET", t + "/globex/settings", admin);  // 200
  call("PATCH", t + "/globex/settings", admin, R"({"pii":{"mode":"block"}})");
  call("PATCH", t + "/globex/settings", admin, R"({"pii":"mask"})");  // 400
  call("PATCH", t + "/globex/settings", admin,
       R"({"rate_limits":{"tenant_requests_per_minute":1}})");  // for a 429 below
  call("PUT", t + "/globex/settings", admin);                   // 405
  const auto minted = call.post(t + "/globex/keys", admin, {{"scopes", json::array({"chat"})}});
  ASSERT_EQ(minted.status, 201) << minted.body;
  const std::string globex_key = minted.json()["key"];
  call.post(t + "/globex/keys", admin, {{"scopes", json::array({"nope"})}});  // 400
  call.post(t + "/nobody/keys", admin, {{"scopes", "chat"}});                 // 404
  call("GET", t + "/globex/keys", admin);
  call("GET", "/internal/v1/keys", admin);
  const auto spare = call.post(t + "/globex/keys", admin, json::object());
  const std::string spare_id = std::to_string(spare.json()["id"].get<std::int64_t>());
  const auto rotated = call.post("/internal/v1/keys/" + spare_id + "/rotate", admin, json::object());
  EXPECT_EQ(rotated.status, 201) << rotated.body;
  call.post("/internal/v1/keys/" + spare_id + "/rotate", admin, json::object());  // 400 revoked
  const std::string rotated_id = std::to_string(rotated.json()["id"].get<std::int64_t>());
  EXPECT_EQ(call("POST", "/internal/v1/keys/" + rotated_id + "/revoke", admin).status, 200);
  call("POST", "/internal/v1/keys/999999/revoke", admin);  // 404
  call("POST", "/internal/v1/keys/abc/revoke", admin);     // 400
  call("GET", "/internal/v1/keys/1/revoke", admin);        // 405

  // Budgets and credits (acme: a roomy one; broke: one the pricey model exceeds).
  const auto budget =
      call.post(t + "/acme/budgets", admin, {{"scope", "tenant"}, {"window", "month"}, {"limit", "100.00"}});
  ASSERT_EQ(budget.status, 201) << budget.body;
  call.post(t + "/acme/budgets", admin,
            {{"scope", "feature"}, {"feature", "search"}, {"window", "day"}, {"limit", "50.00"}});
  call.post(t + "/acme/budgets", admin,
            {{"scope", "tenant"}, {"window", "month"}, {"limit", "1.00"}});        // 409
  call.post(t + "/acme/budgets", admin, {{"window", "year"}, {"limit", "1.00"}});  // 400
  call("GET", t + "/acme/budgets", admin);
  const std::string budget_id = std::to_string(budget.json()["id"].get<std::int64_t>());
  call("PATCH", "/internal/v1/budgets/" + budget_id, admin, R"({"limit":"120.00"})");
  call("PATCH", "/internal/v1/budgets/999999", admin, R"({"limit":"4"})");  // 404
  const auto doomed =
      call.post(t + "/acme/budgets", admin,
                {{"scope", "feature"}, {"feature", "doomed"}, {"window", "hour"}, {"limit", "1"}});
  call("DELETE", "/internal/v1/budgets/" + std::to_string(doomed.json()["id"].get<std::int64_t>()), admin);
  call("GET", "/internal/v1/budgets/" + budget_id, admin);  // 405
  call("GET", t + "/acme/credits", admin);                  // 404: no account yet
  call.post(t + "/acme/credits", admin, {{"amount", "500.00"}});
  call.post(t + "/acme/credits", admin, {{"amount", "-1"}});  // 400
  call("GET", t + "/acme/credits", admin);
  call.post(t, admin, {{"name", "broke"}});
  const std::string broke_key = gw.create_key("broke", "chat").key;
  call.post(t + "/broke/budgets", admin, {{"scope", "tenant"}, {"window", "day"}, {"limit", "0.01"}});

  // Prompts.
  const json spec = {{"template",
                      {{{"role", "system"}, {"content", "Answer in a {{tone}} tone."}},
                       {{"role", "user"}, {"content", "{{question}}"}}}},
                     {"model", "gpt-4o-mini"},
                     {"parameters", {{"temperature", 0.2}, {"max_tokens", 50}}}};
  const std::string pv = t + "/acme/prompts/support/versions";
  ASSERT_EQ(call.post(pv, admin, spec).status, 201);
  call.post(pv, admin, spec);
  call.post(pv, admin, {{"template", "{{unclosed"}, {"model", "gpt-4o-mini"}});  // 400
  call.post(t + "/acme/prompts/bad%20name/versions", admin, spec);               // 400
  call("GET", pv, admin);
  call("GET", t + "/acme/prompts", admin);
  call("GET", t + "/acme/prompts/support", admin);
  call("GET", t + "/acme/prompts/missing", admin);  // 404
  call("POST", pv + "/2/activate", admin);
  call("POST", pv + "/9/activate", admin);  // 404
  call("POST", pv + "/x/activate", admin);  // 400

  // ---- Chat completions ----------------------------------------------------
  const std::string cc = "/v1/chat/completions";
  const auto plain = call.post(cc, chat, {{"model", "gpt-4o-mini"}, {"messages", user_turn("hello openapi")}},
                               {{"X-Feature", "search"}, {"Idempotency-Key", "openapi-1"}});
  EXPECT_EQ(plain.status, 200) << plain.body;
  call.post(cc, chat, {{"model", "gpt-4o-mini"}, {"messages", user_turn("hello openapi")}},
            {{"X-Feature", "search"}, {"Idempotency-Key", "openapi-1"}});  // replay
  call.post(cc, chat, {{"model", "claude"}, {"messages", user_turn("hi")}, {"max_tokens", 40}});
  call.post(cc, chat, {{"model", "gemini"}, {"messages", user_turn("hi")}, {"stream", true}});
  call.post(cc, chat, {{"model", "gpt-4o-mini"}, {"messages", user_turn("streamed")}, {"stream", true}});
  call.post(cc, chat, {{"model", "cut-2"}, {"messages", user_turn("cut")}, {"stream", true}});  // error event
  call.post(cc, chat,
            {{"prompt", {{"name", "support"}, {"variables", {{"tone", "dry"}, {"question", "why?"}}}}},
             {"messages", user_turn("thanks")}});
  call.post(cc, chat, {{"prompt", {{"name", "support"}, {"variables", {{"tone", "dry"}}}}}});  // 422 variable
  call.post(cc, chat, {{"prompt", {{"name", "ghost"}}}, {"messages", user_turn("x")}});        // 404
  call("POST", cc, chat, "{not json", {});                                                     // 400
  call.post(cc, chat, {{"messages", user_turn("x")}});                                         // 400 missing
  call.post(cc, chat, {{"model", "claude"}, {"messages", user_turn("x")}, {"temperature", 5}});  // 400 range
  call.post(cc, chat, {{"model", "nope-model"}, {"messages", user_turn("x")}});                  // 404
  call.post(cc, chat, {{"model", "auto"}, {"messages", user_turn("x")}});                        // 422
  call.post(
      cc, chat,
      {{"model", "claude"}, {"messages", user_turn("x")}, {"response_format", {{"type", "json_object"}}}});
  call.post(cc, chat, {{"model", "gpt-4o-mini"}, {"messages", user_turn("x")}, {"max_tokens", 100000000}});
  call.post(cc, chat, {{"model", "gpt-4o-mini"}, {"messages", user_turn("x")}},
            {{"Idempotency-Key", "openapi-1"}});  // 422 reused
  call.post(cc, chat, {{"model", "gpt-4o-mini"}, {"messages", user_turn("x")}},
            {{"Idempotency-Key", std::string(300, 'k')}});                            // 400
  call.post(cc, "", {{"model", "gpt-4o-mini"}, {"messages", user_turn("x")}});        // 401
  call.post(cc, bad_key, {{"model", "gpt-4o-mini"}, {"messages", user_turn("x")}});   // 401
  call.post(cc, reader, {{"model", "gpt-4o-mini"}, {"messages", user_turn("x")}});    // 403
  call("GET", cc, chat);                                                              // 405
  call.post(cc, chat, {{"model", "err-500"}, {"messages", user_turn("x")}});          // 502
  call.post(cc, chat, {{"model", "slow-first-byte"}, {"messages", user_turn("x")}});  // 504
  call.post(cc, chat, {{"model", "rate-limited"}, {"messages", user_turn("x")}});     // 429 (vendor)
  call.post(cc, broke_key, {{"model", "pricey"}, {"messages", user_turn("x")}, {"max_tokens", 50}});  // 402
  call.post(cc, chat, {{"model", "gpt-4o-mini"}, {"messages", user_turn(std::string(70000, 'a'))}});  // 413
  // globex: PII block and one request a minute.
  call.post(cc, globex_key, {{"model", "gpt-4o-mini"}, {"messages", user_turn("card 4111 1111 1111 1111")}});
  call.post(cc, globex_key, {{"model", "gpt-4o-mini"}, {"messages", user_turn("one")}});
  call.post(cc, globex_key, {{"model", "gpt-4o-mini"}, {"messages", user_turn("two")}});  // 429

  // ---- Responses -----------------------------------------------------------
  const std::string rs = "/v1/responses";
  const std::string em = "/v1/embeddings";
  const auto kept = call.post(rs, chat,
                              {{"model", "gpt-4o-mini"},
                               {"input", "hello responses"},
                               {"instructions", "Be brief."},
                               {"metadata", {{"k", "v"}}}});
  ASSERT_EQ(kept.status, 200) << kept.body;
  const std::string rid = kept.json()["id"];
  call.post(rs, chat, {{"model", "claude"}, {"input", "hi"}, {"previous_response_id", rid}});
  call.post(rs, chat, {{"model", "gpt-native"}, {"input", "native"}});
  call.post(
      rs, chat,
      {{"model", "gemini"},
       {"input", "use the tool"},
       {"tools", json::array({{{"type", "function"},
                               {"name", "lookup"},
                               {"parameters", {{"type", "object"}, {"properties", json::object()}}}}})}});
  call.post(rs, chat, {{"model", "gpt-4o-mini"}, {"input", "stream"}, {"stream", true}});
  call.post(rs, chat, {{"model", "gpt-native"}, {"input", "native stream"}, {"stream", true}});
  call.post(rs, chat, {{"model", "cut-2"}, {"input", "cut"}, {"stream", true}});  // failed + error
  call.post(rs, chat, {{"model", "gpt-4o-mini"}, {"input", "x"}, {"bogus", 1}});  // 400 unknown_parameter
  call.post(rs, chat, {{"model", "gpt-4o-mini"}, {"input", "x"}, {"background", true}});  // 422
  call.post(rs, chat, {{"model", "gpt-4o-mini"}, {"input", "x"}, {"previous_response_id", "resp_nope"}});
  call.post(rs, "", {{"model", "gpt-4o-mini"}, {"input", "x"}});                               // 401
  call.post(rs, reader, {{"model", "gpt-4o-mini"}, {"input", "x"}});                           // 403
  call("GET", rs, chat);                                                                       // 405
  call.post(rs, chat, {{"model", "ghost"}, {"input", "x"}});                                   // 404
  call.post(rs, chat, {{"model", "err-500"}, {"input", "x"}});                                 // 502
  call.post(rs, broke_key, {{"model", "pricey"}, {"input", "x"}, {"max_output_tokens", 50}});  // 402
  call.post(rs, globex_key, {{"model", "gpt-4o-mini"}, {"input", "four"}});                    // 429
  call.post(em, chat, {{"model", "emb"}, {"input", std::string(70000, 'a')}});                 // 413
  call("GET", rs + "/" + rid, chat);
  call("GET", rs + "/" + rid + "/input_items?order=asc&limit=10", chat);
  call("GET", rs + "/" + rid + "/input_items?limit=0", chat);  // 400
  call("GET", rs + "/resp_unknown", chat);                     // 404
  call("GET", rs + "/resp_unknown/input_items", chat);         // 404
  call("GET", rs + "/" + rid, "");                             // 401
  call("GET", rs + "/" + rid, reader);                         // 403
  call("PUT", rs + "/" + rid, chat);                           // 405
  call("POST", rs + "/" + rid + "/input_items", chat);         // 405
  call("DELETE", rs + "/" + rid, chat);
  call("DELETE", rs + "/" + rid, chat);  // 404

  // ---- Messages (Anthropic's shapes and envelope) --------------------------
  const std::string ms = "/v1/messages";
  const Headers av = {{"anthropic-version", "2023-06-01"}};
  auto with_key = [&](const std::string& key) {
    Headers h = av;
    h.emplace_back("x-api-key", key);
    return h;
  };
  const json msg = {{"model", "claude"}, {"max_tokens", 64}, {"messages", user_turn("hello messages")}};
  call.post(ms, "", msg, with_key(chat));
  call.post(ms, chat, {{"model", "gpt-4o-mini"}, {"max_tokens", 64}, {"messages", user_turn("hi")}}, av);
  json streamed = msg;
  streamed["stream"] = true;
  call.post(ms, "", streamed, with_key(chat));
  streamed["model"] = "gemini";
  call.post(ms, "", streamed, with_key(chat));
  streamed["model"] = "cut-2";
  call.post(ms, "", streamed, with_key(chat));                                             // error event
  call.post(ms, "", {{"model", "claude"}, {"messages", user_turn("x")}}, with_key(chat));  // 400 max_tokens
  call.post(ms, "", {{"model", "claude"}, {"max_tokens", 5}, {"messages", user_turn("x")}, {"bogus", 1}},
            with_key(chat));                                                          // 400 extra
  call.post(ms, "", msg, {{"anthropic-version", "yesterday"}, {"x-api-key", chat}});  // 400 version
  call.post(ms, "", msg, av);                                                         // 401
  call.post(ms, "", msg, with_key(reader));                                           // 403
  call.post(ms, "", {{"model", "nope"}, {"max_tokens", 5}, {"messages", user_turn("x")}}, with_key(chat));
  call.post(ms, "", {{"model", "err-500"}, {"max_tokens", 5}, {"messages", user_turn("x")}}, with_key(chat));
  call.post(ms, "", {{"model", "pricey"}, {"max_tokens", 50}, {"messages", user_turn("x")}},
            with_key(broke_key));  // 402
  call.post(ms, "", {{"model", "gpt-4o-mini"}, {"max_tokens", 5}, {"messages", user_turn("three")}},
            with_key(globex_key));  // 429
  call.post(ms, "", {{"model", "auto"}, {"max_tokens", 5}, {"messages", user_turn("x")}},
            with_key(chat));  // 422
  call.post(ms, "",
            {{"model", "claude"}, {"max_tokens", 5}, {"messages", user_turn(std::string(70000, 'a'))}},
            with_key(chat));  // 413
  call("GET", ms, chat);      // 405
  const std::string ct = "/v1/messages/count_tokens";
  call.post(ct, "", msg, with_key(chat));
  call.post(ct, "", {{"model", "gpt-4o-mini"}, {"messages", user_turn("count me")}}, with_key(chat));
  call.post(ct, "", {{"model", "claude"}}, with_key(chat));  // 400
  call.post(ct, "", msg, av);                                // 401
  call("GET", ct, chat);                                     // 405

  // ---- Embeddings ------------------------------------------------------------
  call.post(em, chat, {{"model", "emb"}, {"input", "hello"}, {"encoding_format", "float"}});
  call.post(em, chat, {{"model", "emb"}, {"input", json::array({"a", "b"})}});
  call.post(em, chat, {{"model", "gpt-4o-mini"}, {"input", "x"}});  // 400 invalid_model
  call.post(em, chat, {{"model", "emb"}});                          // 400 missing
  call.post(em, chat, {{"model", "ghost"}, {"input", "x"}});        // 404
  call.post(em, "", {{"model", "emb"}, {"input", "x"}});            // 401
  call.post(em, reader, {{"model", "emb"}, {"input", "x"}});        // 403
  call("GET", em, chat);                                            // 405

  // ---- Models and prompts ----------------------------------------------------
  call("GET", "/v1/models", chat);
  call("GET", "/v1/models", "");
  call("GET", "/v1/models", reader);
  call("POST", "/v1/models", chat);
  call("GET", "/v1/prompts/support", reader);
  call("GET", "/v1/prompts/support?version=1", reader);
  call("GET", "/v1/prompts/support?version=7", reader);  // 404
  call("GET", "/v1/prompts/support?version=x", reader);  // 400
  call("GET", "/v1/prompts/ghost", reader);              // 404
  call("GET", "/v1/prompts/support", chat);              // 403
  call("GET", "/v1/prompts/support", "");                // 401
  call("DELETE", "/v1/prompts/support", reader);         // 405

  // ---- Usage, budgets, audit (after the records are written) ----------------
  ASSERT_TRUE(eventually([&] {
    return http_get(port(), "/v1/usage?limit=1000", reader).json().value("data", json::array()).size() >= 10;
  }));
  call("GET", "/v1/usage", reader);
  call("GET", "/v1/usage?limit=2", reader);
  const auto page = call("GET", "/v1/usage?limit=1&status=success&stream=false", reader);
  if (page.json().value("next_cursor", json()).is_string()) {
    call("GET",
         "/v1/usage?limit=1&status=success&stream=false&cursor=" +
             page.json()["next_cursor"].get<std::string>(),
         reader);
  }
  call("GET", "/v1/usage?from=2020-01-01T00:00:00Z&to=2099-01-01T00:00:00Z&model=gpt-4o-mini", reader);
  call("GET", "/v1/usage?feature=search&operation=chat.completions", reader);
  for (const char* g : {"day", "hour", "model", "feature", "key"}) {
    call("GET", std::string("/v1/usage?group_by=") + g, reader);
  }
  call("GET", "/v1/usage?limit=0", reader);        // 400
  call("GET", "/v1/usage?bogus=1", reader);        // 400
  call("GET", "/v1/usage?group_by=week", reader);  // 400
  call("GET", "/v1/usage", chat);                  // 403
  call("GET", "/v1/usage", "");                    // 401
  call("POST", "/v1/usage", reader);               // 405
  call("GET", "/v1/budgets", reader);
  call("GET", "/v1/budgets", chat);    // 403
  call("GET", "/v1/budgets", "");      // 401
  call("PUT", "/v1/budgets", reader);  // 405
  call("GET", "/v1/audit", reader);
  call("GET", "/v1/audit?limit=2&action=key.create", reader);
  call("GET", "/v1/audit?limit=0", reader);  // 400
  call("GET", "/v1/audit", chat);            // 403
  call("GET", "/v1/audit", "");              // 401
  call("POST", "/v1/audit", reader);         // 405
  call("GET", "/internal/v1/audit?tenant=acme&limit=5", admin);
  call("GET", "/internal/v1/audit", admin);
  call("GET", "/internal/v1/audit?tenant=nobody", admin);  // 404
  call("GET", "/internal/v1/audit", reader);               // 403
  call("POST", "/internal/v1/audit", admin);               // 405
  call("GET", "/internal/v1/audit/verify", admin);
  call("GET", "/internal/v1/audit/verify?tenant=acme", admin);
  call("GET", "/internal/v1/audit/verify?tenant=nobody", admin);  // 404
  call("GET", "/internal/v1/audit/verify?chain=1", admin);        // 400
  call("GET", "/internal/v1/audit/verify", reader);               // 403
  call("DELETE", "/internal/v1/audit/verify", admin);             // 405
  call("GET", "/internal/v1/usage?tenant=acme&limit=5", admin);
  call("GET", "/internal/v1/usage?tenant=acme&group_by=model", admin);
  call("GET", "/internal/v1/usage?group_by=day", admin);   // 400: no tenant
  call("GET", "/internal/v1/usage?tenant=nobody", admin);  // 404
  call("GET", "/internal/v1/usage?tenant=acme", reader);   // 403
  call("POST", "/internal/v1/usage?tenant=acme", admin);   // 405

  // ---- Operations: health, readiness, metrics, the document -----------------
  call("GET", "/healthz", "");
  call("POST", "/healthz", "");
  call("GET", "/readyz", "");
  call("POST", "/readyz", "");
  call("GET", "/metrics", "");
  call("POST", "/metrics", "");
  const auto doc = call("GET", "/v1/openapi.json", "");
  call("POST", "/v1/openapi.json", "");
  const auto again = call("GET", "/v1/openapi.json", "", {}, {{"If-None-Match", doc.header("etag")}});

  ASSERT_EQ(doc.status, 200) << doc.body;
  EXPECT_EQ(doc.header("content-type").rfind("application/json", 0), 0u) << doc.header("content-type");
  const json served = doc.json();
  ASSERT_TRUE(served.is_object()) << doc.body.substr(0, 200);
  EXPECT_EQ(served.value("openapi", "").rfind("3.1.", 0), 0u) << served.value("openapi", "");
  // The public contract only: the admin surface is described in the file, not served.
  ASSERT_TRUE(served.contains("paths"));
  EXPECT_TRUE(served["paths"].contains("/v1/chat/completions"));
  for (const auto& entry : served["paths"].items()) {
    EXPECT_NE(entry.key().rfind("/internal", 0), 0u) << entry.key() << " is served";
  }
  EXPECT_FALSE(doc.header("etag").empty());
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(again.header("etag"), doc.header("etag"));

  // ---- Every operation without a key, and with a key lacking its scope ------
  const std::vector<std::pair<std::string, std::string>> keyed = {
      {"POST", "/v1/embeddings"},
      {"POST", "/v1/messages/count_tokens"},
      {"GET", "/v1/responses/resp_x/input_items"},
      {"DELETE", "/v1/responses/resp_x"},
      {"GET", "/internal/v1/tenants/acme"},
      {"GET", "/internal/v1/tenants/acme/settings"},
      {"PATCH", "/internal/v1/tenants/acme/settings"},
      {"GET", "/internal/v1/tenants/acme/keys"},
      {"POST", "/internal/v1/tenants/acme/keys"},
      {"GET", "/internal/v1/keys"},
      {"POST", "/internal/v1/keys/1/revoke"},
      {"POST", "/internal/v1/keys/1/rotate"},
      {"GET", "/internal/v1/tenants/acme/budgets"},
      {"POST", "/internal/v1/tenants/acme/budgets"},
      {"PATCH", "/internal/v1/budgets/1"},
      {"DELETE", "/internal/v1/budgets/1"},
      {"GET", "/internal/v1/tenants/acme/credits"},
      {"POST", "/internal/v1/tenants/acme/credits"},
      {"GET", "/internal/v1/tenants/acme/prompts"},
      {"GET", "/internal/v1/tenants/acme/prompts/support"},
      {"GET", "/internal/v1/tenants/acme/prompts/support/versions"},
      {"POST", "/internal/v1/tenants/acme/prompts/support/versions"},
      {"POST", "/internal/v1/tenants/acme/prompts/support/versions/1/activate"},
  };
  for (const auto& [method, path] : keyed) {
    const bool messages = path.rfind("/v1/messages", 0) == 0;
    const std::string body = method == "POST" || method == "PATCH" ? "{}" : "";
    EXPECT_EQ(call(method, path, "", body, messages ? av : Headers{}).status, 401) << method << " " << path;
    const std::string& wrong = path.rfind("/internal/", 0) == 0 ? chat : reader;
    EXPECT_EQ(call(method, path, wrong, body, messages ? av : Headers{}).status, 403)
        << method << " " << path;
  }

  // ---- The check -------------------------------------------------------------
  ASSERT_GT(log.count(), 100);
  if (const char* keep = std::getenv("MODELGW_OPENAPI_ANSWERS"))
    fs::copy_file(answers, keep, fs::copy_options::overwrite_existing);
  const RunResult run = run_to_exit(
      node.string(),
      {(root / "tests/openapi/validate_answers.mjs").string(), answers.string(), "--require-coverage"},
      {{"NODE_OPTIONS", ""}}, 60s);
  EXPECT_EQ(run.exit_code, 0) << "validate_answers.mjs exited " << run.exit_code << "\n--- stdout ---\n"
                              << run.out << "\n--- stderr ---\n"
                              << run.err;
  EXPECT_NE(run.out.find("every operation exercised"), std::string::npos) << run.out;
  std::cout << run.out;  // each operation and the statuses it answered, for the log
  // The served document is the YAML, converted.
  const RunResult same =
      run_to_exit(node.string(),
                  {(root / "tests/openapi/validate_answers.mjs").string(), "--compare-served",
                   "http://127.0.0.1:" + std::to_string(port()) + "/v1/openapi.json"},
                  {{"NODE_OPTIONS", ""}, {"NO_PROXY", "127.0.0.1"}, {"no_proxy", "127.0.0.1"}}, 30s);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
}

}  // namespace
}  // namespace it
