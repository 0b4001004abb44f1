// The gateway's log end to end: every line is one JSON object; every line
// about a request carries its request_id; every HTTP request (chat, models,
// admin, health, refused by the parser) leaves exactly one access line; and
// no secret or PII value sent to the gateway or held in its config shows up
// anywhere in the log.
#include "harness/checks.h"
#include "harness/stack.h"

#include <algorithm>
#include <map>
#include <set>

namespace it {
namespace {

using namespace std::chrono_literals;

constexpr const char* kEmail = "log.leak.test@example.org";
constexpr const char* kCard = "4111 1111 1111 1111";
constexpr const char* kQuerySecret = "qs-s3cret-Zk81Lw0";
constexpr const char* kHeaderSecret = "hdr-s3cret-Pq72Mx5";
constexpr const char* kBadKey = "sk-mgw-notAKeyThatExistsAtAll0000000000000000";

std::vector<std::string> lines_of(const std::string& log) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < log.size()) {
    const std::size_t end = log.find('\n', start);
    if (end == std::string::npos) break;  // a line still being written
    lines.push_back(log.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

class StructuredLogTest : public ::testing::Test {
 protected:
  static HttpResponse admin(const std::string& method, const std::string& path, const std::string& body,
                            const std::string& key) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = body;
    r.headers.emplace_back("Authorization", "Bearer " + key);
    return http_call(stack_->port(), r);
  }

  static inline std::unique_ptr<Stack> stack_;
};

TEST_F(StructuredLogTest, EveryLineIsJsonWithRequestIdsOneAccessLinePerRequestAndNoSecret) {
  GatewayOptions o;
  o.pii_yaml = "pii:\n  default_mode: flag\n";
  stack_ = start_stack(o);
  const auto& gw = *stack_->gateway;
  const std::string admin_key = gw.create_key("acme", "admin").key;
  gw.create_tenant("masker");
  const std::string masker_key = gw.create_key("masker").key;
  ASSERT_EQ(admin("PATCH", "/internal/v1/tenants/masker/settings", json{{"pii", {{"mode", "mask"}}}}.dump(),
                  admin_key)
                .status,
            200);

  const std::string pii_text = std::string("mail ") + kEmail + " card " + kCard;
  std::vector<std::string> ids;  // one per request sent below
  auto note = [&](const HttpResponse& r, int status) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_TRUE(is_request_id(r.header("x-request-id"))) << r.header("x-request-id");
    ids.push_back(r.header("x-request-id"));
  };
  const int port = stack_->port();
  const std::string& key = stack_->key.key;
  // Chat: flagged PII, masked PII, a stream, a failing provider (401 with
  // the provider key in play), an unreachable one (warn lines).
  note(post_chat(port, key, chat_body("gpt-4o-mini", pii_text)), 200);
  note(post_chat(port, masker_key, chat_body("gpt-4o-mini", pii_text)), 200);
  const auto streamed = stream_chat(port, key, chat_body("gpt-4o-mini", pii_text, true));
  ASSERT_EQ(streamed.status, 200);
  ids.push_back(streamed.header("x-request-id"));
  note(post_chat(port, key, chat_body("err-401", pii_text)), 502);
  note(post_chat(port, key, chat_body("unreachable", pii_text)), 502);
  // Credentials: a key that does not exist, one a character off, none.
  note(post_chat(port, kBadKey, chat_body("gpt-4o-mini", pii_text)), 401);
  note(post_chat(port, key + "x", chat_body("gpt-4o-mini", pii_text)), 401);
  note(post_chat(port, "", chat_body("gpt-4o-mini", pii_text)), 401);
  // Other routes; a secret in a query string and in a header.
  note(http_get(port, "/v1/models", key), 200);
  note(http_get(port, std::string("/v1/models?api_key=") + kQuerySecret, key), 200);
  note(http_get(port, "/healthz"), 200);
  note(admin("GET", "/internal/v1/tenants", "", admin_key), 200);
  // Refused by the transport before any handler: a malformed request.
  const auto refused = raw_http(port, std::string("GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Token: ") +
                                          kHeaderSecret + "\r\nBad Header\r\n\r\n");
  note(refused, 400);
  // Refused while its body is read: the head was, so method and path are known.
  const auto bad_body =
      raw_http(port, std::string("POST /v1/chat/completions?token=") + kQuerySecret +
                         " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n");
  note(bad_body, 400);

  // Every request's access line, the last one included, is out.
  auto access_lines_for_ids = [&] {
    std::size_t n = 0;
    for (const auto& line : lines_of(gw.log())) {
      const json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("log", "") == "access" &&
          std::find(ids.begin(), ids.end(), j.value("request_id", "")) != ids.end())
        ++n;
    }
    return n;
  };
  ASSERT_TRUE(eventually([&] { return access_lines_for_ids() >= ids.size(); }, 5s)) << gw.log();
  const std::string log = gw.log();

  // No secret, no PII value.
  for (const std::string& v :
       {key, masker_key, admin_key, std::string(kBadKey), key + "x", std::string(kProviderKey),
        std::string(kEmail), std::string(kCard), std::string(kQuerySecret), std::string(kHeaderSecret)}) {
    EXPECT_EQ(log.find(v), std::string::npos) << "the log holds " << v;
  }
  EXPECT_EQ(log.find(std::string(kProviderKey).substr(0, 16)), std::string::npos);
  // Nor any piece of the card that could only come from it (a bare "4111"
  // turns up in ports, durations and random ids).
  EXPECT_EQ(log.find("4111 1111"), std::string::npos);
  EXPECT_EQ(log.find("4111111111111111"), std::string::npos);

  std::map<std::string, int> access_lines;  // request_id -> count
  std::set<std::string> scoped;             // request ids seen on lines that are not access lines
  for (const auto& line : lines_of(log)) {
    const json j = json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << "not a JSON object: " << line;
    ASSERT_TRUE(j.contains("ts") && j.contains("level") && j["msg"].is_string()) << line;
    if (j.value("log", "") == "access") {
      ASSERT_TRUE(j["request_id"].is_string()) << line;
      ++access_lines[j["request_id"].get<std::string>()];
      for (const char* field : {"method", "path", "status", "error", "bytes", "duration_us", "tenant",
                                "alias", "provider", "streamed", "trace_id"}) {
        EXPECT_TRUE(j.contains(field)) << field << " missing: " << line;
      }
      EXPECT_EQ(j["path"].get<std::string>().find('?'), std::string::npos) << line;
      continue;
    }
    // A line that names a request carries it as the request_id member.
    const std::string msg = j["msg"];
    if (msg.find("req_") != std::string::npos) {
      EXPECT_TRUE(j.contains("request_id")) << "a request-scoped line without request_id: " << line;
    }
    if (j.contains("request_id")) scoped.insert(j["request_id"].get<std::string>());
  }
  for (const auto& id : ids) EXPECT_EQ(access_lines[id], 1) << "access lines for " << id << "\n" << log;
  for (const auto& [id, n] : access_lines) EXPECT_EQ(n, 1) << id;

  // A served chat request's summary is its access line (below); the warn
  // paths add lines about their requests.
  EXPECT_TRUE(scoped.count(ids[3])) << "the provider failure of " << ids[3];
  EXPECT_TRUE(scoped.count(ids[4])) << "the unreachable provider of " << ids[4];

  // What the access lines say about a few of them.
  auto access_of = [&](const std::string& id) {
    for (const auto& line : lines_of(log)) {
      const json j = json::parse(line, nullptr, false);
      if (j.value("log", "") == "access" && j.value("request_id", "") == id) return j;
    }
    return json();
  };
  const json chat = access_of(ids[0]);
  EXPECT_EQ(chat["method"], "POST");
  EXPECT_EQ(chat["path"], "/v1/chat/completions");
  EXPECT_EQ(chat["status"], 200);
  EXPECT_EQ(chat["tenant"], "acme");
  EXPECT_EQ(chat["alias"], "gpt-4o-mini");
  EXPECT_EQ(chat["provider"], "openai");
  EXPECT_EQ(chat["streamed"], false);
  EXPECT_GT(chat["bytes"].get<int>(), 0);
  EXPECT_GT(chat["tokens"].get<int>(), 0);
  EXPECT_EQ(chat["attempts"], 1);
  EXPECT_EQ(chat["pii"], "flagged");  // the action, never the values (checked above)
  EXPECT_EQ(access_of(ids[1])["pii"], "masked");
  EXPECT_EQ(access_of(ids[2])["streamed"], true);
  EXPECT_EQ(access_of(ids[3])["error"], "provider_failed");
  EXPECT_EQ(access_of(ids[5])["status"], 401);
  EXPECT_EQ(access_of(ids[5])["tenant"], "");
  EXPECT_EQ(access_of(ids[9])["path"], "/v1/models");
  EXPECT_EQ(access_of(ids[ids.size() - 2])["status"], 400);
  EXPECT_EQ(access_of(ids.back())["status"], 400);
  EXPECT_EQ(access_of(ids.back())["method"], "POST");
  EXPECT_EQ(access_of(ids.back())["path"], "/v1/chat/completions");
  stack_.reset();
}

TEST_F(StructuredLogTest, AccessLogOffWritesNoAccessLine) {
  GatewayOptions o;
  o.extra_logging_yaml = "  access_log: false\n";
  stack_ = start_stack(o);
  const auto r = post_chat(stack_->port(), stack_->key.key, chat_body("gpt-4o-mini", "quiet please"));
  ASSERT_EQ(r.status, 200);
  ASSERT_TRUE(stack_->gateway->wait_log("\"request_id\":\"" + r.header("x-request-id") + "\"", 5s));
  EXPECT_EQ(stack_->gateway->log().find("\"log\":\"access\""), std::string::npos) << stack_->gateway->log();
  stack_.reset();
}

TEST_F(StructuredLogTest, CombinedAccessFormatAndTextLines) {
  GatewayOptions o;
  o.extra_logging_yaml = "  format: text\n  access_log_format: combined\n";
  stack_ = start_stack(o);
  const auto r = http_get(stack_->port(), "/v1/models", stack_->key.key);
  ASSERT_EQ(r.status, 200);
  const std::string id = r.header("x-request-id");
  ASSERT_TRUE(stack_->gateway->wait_log("request_id=" + id, 5s)) << stack_->gateway->log();
  const std::string log = stack_->gateway->log();
  EXPECT_NE(log.find(" info - acme [-] \"GET /v1/models HTTP/1.1\" 200 "), std::string::npos) << log;
  EXPECT_EQ(log.find("{\"ts\""), std::string::npos) << "text lines, not JSON";
  stack_.reset();
}

}  // namespace
}  // namespace it
