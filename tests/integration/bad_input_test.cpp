// Requests the gateway must refuse, each with its exact status, code and param,
// and without harm to the process.
#include "harness/checks.h"
#include "harness/raw_connection.h"
#include "harness/stack.h"

#include <cstdio>
#include <utility>
#include <vector>

namespace it {
namespace {

using namespace std::chrono_literals;

class BadInputTest : public SharedStackTest<BadInputTest> {
 protected:
  static HttpResponse send(const std::string& body) { return post_chat(port(), key(), body); }
  static std::string with_messages(const std::string& messages_json) {
    return R"({"model":"gpt-4o-mini","messages":)" + messages_json + "}";
  }
};

const std::optional<std::string> kNoParam;

TEST_F(BadInputTest, MalformedJson) {
  EXPECT_TRUE(IsApiError(send(R"({"model":"gpt-4o-mini","messages":[)"), 400, "invalid_request_error",
                         "invalid_json", kNoParam));
  EXPECT_TRUE(IsApiError(send("not json at all"), 400, "invalid_request_error", "invalid_json", kNoParam));
}

TEST_F(BadInputTest, EmptyBody) {
  EXPECT_TRUE(IsApiError(send(""), 400, "invalid_request_error", "invalid_json", kNoParam));
  EXPECT_TRUE(IsApiError(send("  \r\n "), 400, "invalid_request_error", "invalid_json", kNoParam));
}

TEST_F(BadInputTest, JsonArrayBody) {
  EXPECT_TRUE(IsApiError(send(R"([{"model":"gpt-4o-mini"}])"), 400, "invalid_request_error", "invalid_json",
                         kNoParam));
}

TEST_F(BadInputTest, ModelMissingOrNotAString) {
  EXPECT_TRUE(IsApiError(send(R"({"messages":[{"role":"user","content":"hi"}]})"), 400,
                         "invalid_request_error", "missing_required_field", "model"));
  EXPECT_TRUE(IsApiError(send(R"({"model":42,"messages":[{"role":"user","content":"hi"}]})"), 400,
                         "invalid_request_error", "invalid_parameter", "model"));
}

TEST_F(BadInputTest, MessagesMissingStringOrEmpty) {
  EXPECT_TRUE(IsApiError(send(R"({"model":"gpt-4o-mini"})"), 400, "invalid_request_error",
                         "missing_required_field", "messages"));
  EXPECT_TRUE(IsApiError(send(with_messages(R"("hello")")), 400, "invalid_request_error", "invalid_parameter",
                         "messages"));
  EXPECT_TRUE(
      IsApiError(send(with_messages("[]")), 400, "invalid_request_error", "invalid_parameter", "messages"));
}

TEST_F(BadInputTest, MessageWithoutRoleOrWithUnknownRole) {
  EXPECT_TRUE(IsApiError(send(with_messages(R"([{"content":"hi"}])")), 400, "invalid_request_error",
                         "missing_required_field", "messages[0].role"));
  EXPECT_TRUE(
      IsApiError(send(with_messages(R"([{"role":"user","content":"a"},{"role":"wizard","content":"b"}])")),
                 400, "invalid_request_error", "invalid_parameter", "messages[1].role"));
}

TEST_F(BadInputTest, MessageContentOfTheWrongType) {
  EXPECT_TRUE(IsApiError(send(with_messages(R"([{"role":"user","content":7}])")), 400,
                         "invalid_request_error", "invalid_parameter", "messages[0].content"));
  EXPECT_TRUE(IsApiError(send(with_messages(R"(["just a string"])")), 400, "invalid_request_error",
                         "invalid_parameter", "messages[0]"));
  EXPECT_TRUE(IsApiError(send(with_messages(R"([{"role":5,"content":"x"}])")), 400, "invalid_request_error",
                         "invalid_parameter", "messages[0].role"));
}

TEST_F(BadInputTest, StreamNotABoolean) {
  EXPECT_TRUE(IsApiError(
      send(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":"yes"})"), 400,
      "invalid_request_error", "invalid_parameter", "stream"));
  EXPECT_TRUE(
      IsApiError(send(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":1})"),
                 400, "invalid_request_error", "invalid_parameter", "stream"));
}

TEST_F(BadInputTest, NestingHundredDeep) {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_TRUE(IsApiError(
      send(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"x":)" + deep + "}"), 400,
      "invalid_request_error", "invalid_json", kNoParam));
}

std::string oversized_request(const std::string& api_key, const std::string& body) {
  return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + api_key +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

TEST_F(BadInputTest, BodyOverMaxBodyBytesIs413) {
  // max_body_bytes is 65536: a valid request just over it, sent in one write.
  const std::string body = chat_body("gpt-4o-mini", std::string(65536, 'a'));
  const auto r = raw_http(port(), oversized_request(key(), body));
  EXPECT_TRUE(IsApiError(r, 413, "invalid_request_error", "request_too_large", kNoParam));
}

TEST_F(BadInputTest, ChunkedBodyOverMaxBodyBytesIs413) {
  // No Content-Length: the limit must hold while reading.
  const std::string body = chat_body("gpt-4o-mini", std::string(70000, 'b'));
  std::string raw = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                    key() + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (std::size_t at = 0; at < body.size(); at += 8192) {
    const std::string piece = body.substr(at, 8192);
    char size[16];
    std::snprintf(size, sizeof size, "%zx", piece.size());
    raw += std::string(size) + "\r\n" + piece + "\r\n";
  }
  raw += "0\r\n\r\n";
  EXPECT_TRUE(IsApiError(raw_http(port(), raw), 413, "invalid_request_error", "request_too_large", kNoParam));
}

// An ordinary HTTP client that sends the headers, then the body a moment
// later (a slow upload), must still be able to read the 413. The gateway
// answers on the headers alone and closes at once with the body unread, so
// the kernel resets the connection under the client's upload and it never
// sees the answer (RFC 9112 section 9.6: close in stages / drain the body).
TEST_F(BadInputTest, OversizedSlowUploadStillGets413) {
  HttpRequest req;
  req.body = chat_body("gpt-4o-mini", std::string(70000, 'c'));
  req.headers.emplace_back("Authorization", "Bearer " + key());
  req.delay_before_body = std::chrono::milliseconds(300);
  HttpResponse r;
  try {
    r = http_call(port(), req);
  } catch (const std::exception& e) {
    FAIL() << "the client could not read the gateway's answer: " << e.what();
  }
  EXPECT_TRUE(IsApiError(r, 413, "invalid_request_error", "request_too_large", kNoParam));
}

// The 413 is decided on the headers: it must be on the wire at once, not held
// back while the gateway waits for (and drains) a body that may never come.
TEST_F(BadInputTest, OversizedDeclaredBodyIsAnsweredPromptly) {
  RawConnection c(port());
  c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key() +
         "\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{\"model\":");
  const auto started = Clock::now();
  const auto r = c.read_response(3s);
  ASSERT_TRUE(r.has_value()) << "no answer within 3 s to a request declaring 10 MB (limit 64 KiB)";
  EXPECT_TRUE(IsApiError(*r, 413, "invalid_request_error", "request_too_large", kNoParam));
  EXPECT_LT(Clock::now() - started, 2s);
}

TEST_F(BadInputTest, UnknownAliasIs404ModelNotFound) {
  EXPECT_TRUE(IsApiError(send(chat_body("no-such-model", "hi")), 404, "invalid_request_error",
                         "model_not_found", "model"));
}

TEST_F(BadInputTest, ClientCannotAppendUpstreamDirectivesToAnAlias) {
  // Aliases are looked up exactly; a client never names the upstream model.
  EXPECT_TRUE(IsApiError(send(chat_body("gpt-4o-mini+status=500", "hi")), 404, "invalid_request_error",
                         "model_not_found", "model"));
  EXPECT_TRUE(IsApiError(send(chat_body("GPT-4O-MINI", "hi")), 404, "invalid_request_error",
                         "model_not_found", "model"));
}

TEST_F(BadInputTest, AutoIs422ModelNotAvailable) {
  EXPECT_TRUE(IsApiError(send(chat_body("auto", "hi")), 422, "invalid_request_error", "model_not_available",
                         "model"));
}

TEST_F(BadInputTest, UnknownPathIs404NotFound) {
  EXPECT_TRUE(
      IsApiError(http_get(port(), "/v1/nope", key()), 404, "invalid_request_error", "not_found", kNoParam));
  HttpRequest post;
  post.path = "/v2/chat/completions";
  post.body = chat_body("gpt-4o-mini", "hi");
  EXPECT_TRUE(IsApiError(http_call(port(), post), 404, "invalid_request_error", "not_found", kNoParam));
}

TEST_F(BadInputTest, GetOnChatIs405WithAllowPost) {
  const auto r = http_get(port(), "/v1/chat/completions", key());
  EXPECT_TRUE(IsApiError(r, 405, "invalid_request_error", "method_not_allowed", kNoParam));
  EXPECT_EQ(r.header("allow"), "POST");
}

TEST_F(BadInputTest, PostOnHealthzIs405WithAllowGet) {
  HttpRequest req;
  req.path = "/healthz";
  req.body = "{}";
  const auto r = http_call(port(), req);
  EXPECT_TRUE(IsApiError(r, 405, "invalid_request_error", "method_not_allowed", kNoParam));
  EXPECT_EQ(r.header("allow"), "GET");
}

TEST_F(BadInputTest, InvalidUtf8InAStringIs400) {
  const std::string body =
      std::string(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"bad )") + "\xff\xfe\xc3" +
      R"("}]})";
  EXPECT_TRUE(IsApiError(send(body), 400, "invalid_request_error", "invalid_json", kNoParam));
}

// A number outside double's range is the client's mistake, not the gateway's:
// 400 naming the member, as any other bad value (it was a 500).
TEST_F(BadInputTest, NumberOutOfRangeIs400NamingTheParameter) {
  const std::string head = R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}])";
  EXPECT_TRUE(IsApiError(send(head + R"(,"temperature":1e999})"), 400, "invalid_request_error",
                         "invalid_parameter", "temperature"));
  EXPECT_TRUE(IsApiError(send(head + R"(,"temperature":-1e999})"), 400, "invalid_request_error",
                         "invalid_parameter", "temperature"));
  EXPECT_TRUE(IsApiError(send(head + ",\"seed\":1" + std::string(400, '0') + "}"), 400,
                         "invalid_request_error", "invalid_parameter", "seed"));
  EXPECT_TRUE(
      IsApiError(send(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi","x":[0,1e999]}]})"),
                 400, "invalid_request_error", "invalid_parameter", "messages[0].x[1]"));
  // An integer the gateway reads as a count must fit one.
  EXPECT_TRUE(IsApiError(send(head + R"(,"max_tokens":9223372036854775808})"), 400, "invalid_request_error",
                         "invalid_parameter", "max_tokens"));
}

TEST_F(BadInputTest, NumberOutOfRangeInAPromptVariableIs400) {
  EXPECT_TRUE(IsApiError(send(R"({"model":"gpt-4o-mini","prompt":{"name":"p","variables":{"n":1e999}}})"),
                         400, "invalid_request_error", "invalid_parameter", "prompt.variables.n"));
}

TEST_F(BadInputTest, NumberOutOfRangeInAnAdminBodyIs400) {
  const std::string admin_key = stack().gateway->create_key("acme", "admin").key;
  HttpRequest req;
  req.path = "/internal/v1/tenants";
  req.body = R"({"name":"overflow","settings":{"x":1e999}})";
  req.headers.emplace_back("Authorization", "Bearer " + admin_key);
  EXPECT_TRUE(
      IsApiError(http_call(port(), req), 400, "invalid_request_error", "invalid_parameter", "settings.x"));
}

// Runs last: everything above must have left the process serving.
TEST_F(BadInputTest, ZzStillAliveAndHealthy) {
  send(std::string(60000, '['));
  send(std::string(R"({"model":")") + "\xc0\xaf" + R"(","messages":[]})");
  EXPECT_TRUE(stack().gateway->running());
  EXPECT_EQ(http_get(port(), "/healthz").status, 200);
  EXPECT_EQ(send(chat_body("gpt-4o-mini", "alive")).status, 200);
}

// Requests POCO's parser cannot read still get the envelope and a
// request_id (the gateway's own connection loop answers them), and the
// connection is closed, since where a next request would start is unknown.
TEST_F(BadInputTest, UnparsableRequestHeadsGetTheEnvelope) {
  const std::string huge_header =
      "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(9000, 'b') + "\r\n\r\n";
  const std::string long_name =
      "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n" + std::string(300, 'n') + ": v\r\n\r\n";
  const std::string bad_line = "THIS IS NOT HTTP\r\n\r\n";
  for (const std::string& raw : {huge_header, long_name, bad_line}) {
    const auto r = raw_http(port(), raw, 5s);
    EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", kNoParam)) << r.body;
    EXPECT_EQ(ascii_lower(r.header("connection")), "close") << r.body;
    EXPECT_EQ(r.body.find(std::string(100, 'b')), std::string::npos) << "the header's bytes are not echoed";
  }
  EXPECT_EQ(send(chat_body("gpt-4o-mini", "alive after bad heads")).status, 200);
}

// Client input echoed in an error is a bounded, escaped excerpt: a huge name
// gets a small answer. Needs bodies of megabytes: the default max_body_bytes.
class BadInputLargeBodyTest : public SharedStackTest<BadInputLargeBodyTest> {
 public:
  static void SetUpTestSuite() {
    try {
      GatewayOptions options;
      options.max_body_bytes = 4 << 20;
      stack_ = start_stack(std::move(options));
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }

 protected:
  static HttpResponse send(const std::string& body) { return post_chat(port(), key(), body); }
};

constexpr std::size_t kSmallAnswer = 2048;

TEST_F(BadInputLargeBodyTest, HugeModelNameGetsASmall404) {
  const auto r = send(chat_body(std::string(1 << 20, 'm'), "hi"));
  EXPECT_TRUE(IsApiError(r, 404, "invalid_request_error", "model_not_found", "model"));
  EXPECT_LT(r.body.size(), kSmallAnswer);
}

TEST_F(BadInputLargeBodyTest, HugeUnknownParameterNameGetsASmall422) {
  const std::size_t size = 4'000'000;
  const auto r = send(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],")" +
                      std::string(size, 'p') + R"(":1})");
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "unsupported_parameter",
                         std::string(128, 'p') + "... (4000000 bytes)"));
  EXPECT_LT(r.body.size(), kSmallAnswer);
}

TEST_F(BadInputLargeBodyTest, HugeNamesElsewhereGetSmallAnswers) {
  const std::string huge(1 << 20, 'x');
  const std::string messages = R"("messages":[{"role":"user","content":"hi"}])";
  const std::vector<std::pair<std::string, int>> cases = {
      {R"({"model":"gpt-4o-mini","messages":[{"role":")" + huge + R"(","content":"hi"}]})", 400},
      {R"({"model":"gpt-4o-mini",)" + messages + R"(,"temperature":1)" + std::string(1 << 20, '9') + "}",
       400},
      {R"({"model":"gpt-4o-mini",)" + messages + R"(,")" + huge + R"(":1e999})", 400},
      {R"({"model":"gpt-4o-mini","prompt":{"name":")" + huge + R"("}})", 404},
      {R"({"model":"gpt-4o-mini","prompt":{"name":"p",")" + huge + R"(":1}})", 400},
      {R"({"model":"gpt-4o-mini","prompt":{"name":"p","variables":{")" + huge + R"(":[]}}})", 400},
  };
  for (const auto& [body, status] : cases) {
    const auto r = send(body);
    EXPECT_EQ(r.status, status) << r.body.substr(0, 300);
    EXPECT_LT(r.body.size(), kSmallAnswer) << r.body.substr(0, 300);
  }
}

}  // namespace
}  // namespace it
