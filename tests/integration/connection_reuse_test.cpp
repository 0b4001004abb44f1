// Keep-alive connections: whatever the gateway answered, the next request on
// the same connection must be read as a request of its own, and the body of
// a request must never be read as a request.
#include "harness/checks.h"
#include "harness/raw_connection.h"
#include "harness/stack.h"

namespace it {
namespace {

using namespace std::chrono_literals;

class ConnectionReuseTest : public SharedStackTest<ConnectionReuseTest> {
 protected:
  // Sends `first` on a fresh connection, expects `status`, then (unless the
  // gateway said it closes) a GET /healthz on the same connection must get 200.
  static void expect_next_request_served(const std::string& first, int status) {
    RawConnection c(port());
    c.send(first);
    const auto r1 = c.read_response();
    ASSERT_TRUE(r1.has_value()) << "no answer to the first request";
    EXPECT_EQ(r1->status, status) << r1->body;
    if (r1->header("connection") == "close" || r1->header("connection") == "Close") {
      EXPECT_TRUE(c.closed_without_more(2s)) << "said close, but the connection stayed open";
      return;  // closing is a correct way to be done with an unread body
    }
    c.send(raw_request("GET", "/healthz", ""));
    const auto r2 = c.read_response();
    ASSERT_TRUE(r2.has_value()) << "no answer to the second request on the kept-alive connection";
    EXPECT_EQ(r2->status, 200) << "the second request was misread:\n" << r2->body;
    EXPECT_TRUE(is_request_id(r2->header("x-request-id"))) << "not the gateway's answer: " << r2->body;
    const json health = r2->json();
    EXPECT_TRUE(health.is_object() && health.value("status", "") == "ok") << r2->body;
  }
};

const std::string kBody = chat_body("gpt-4o-mini", "reuse");

TEST_F(ConnectionReuseTest, AfterSuccess) {
  expect_next_request_served(raw_request("POST", "/v1/chat/completions", kBody, "Bearer " + key()), 200);
}

TEST_F(ConnectionReuseTest, AfterValidationError) {
  expect_next_request_served(raw_request("POST", "/v1/chat/completions", "{\"model\":", "Bearer " + key()),
                             400);
}

TEST_F(ConnectionReuseTest, AfterUpstreamError) {
  expect_next_request_served(
      raw_request("POST", "/v1/chat/completions", chat_body("err-500", "x"), "Bearer " + key()), 502);
}

TEST_F(ConnectionReuseTest, AfterMissingKey) {
  expect_next_request_served(raw_request("POST", "/v1/chat/completions", kBody), 401);
}

TEST_F(ConnectionReuseTest, AfterInvalidKey) {
  expect_next_request_served(raw_request("POST", "/v1/chat/completions", kBody, "Bearer sk-mgw-wrong"), 401);
}

TEST_F(ConnectionReuseTest, AfterMissingScope) {
  const auto reader = stack().gateway->create_key("acme", "usage:read");
  expect_next_request_served(raw_request("POST", "/v1/chat/completions", kBody, "Bearer " + reader.key), 403);
}

TEST_F(ConnectionReuseTest, AfterUnknownPath) {
  expect_next_request_served(raw_request("POST", "/v1/completions", kBody, "Bearer " + key()), 404);
}

TEST_F(ConnectionReuseTest, AfterWrongMethod) {
  expect_next_request_served(raw_request("PUT", "/v1/chat/completions", kBody, "Bearer " + key()), 405);
}

// The body of a request the gateway refused on its headers is data, not a
// second request: here it is a complete HTTP request, and it must not be
// answered (an extra answer desynchronises any proxy or pooled client in
// front, which hands it to the next request: response smuggling).
TEST_F(ConnectionReuseTest, BodyOfARefusedRequestIsNeverRunAsARequest) {
  const std::string inner = raw_request("GET", "/healthz", "");
  RawConnection c(port());
  c.send(raw_request("POST", "/v1/chat/completions", inner));  // no Authorization: 401
  const auto r1 = c.read_response();
  ASSERT_TRUE(r1.has_value());
  EXPECT_TRUE(IsApiError(*r1, 401, "authentication_error", "missing_api_key"));
  const auto extra = c.read_response(1s);
  EXPECT_FALSE(extra.has_value()) << "the gateway ran the body as a request and answered "
                                  << (extra ? std::to_string(extra->status) + " " + extra->body : "");
}

TEST_F(ConnectionReuseTest, BodyOfAnUnknownPathRequestIsNeverRunAsARequest) {
  const std::string marker = "smuggled-chat-marker-91";
  const std::string inner =
      raw_request("POST", "/v1/chat/completions", chat_body("gpt-4o-mini", marker), "Bearer " + key());
  RawConnection c(port());
  c.send(raw_request("POST", "/v1/nowhere", inner, "Bearer " + key()));
  const auto r1 = c.read_response();
  ASSERT_TRUE(r1.has_value());
  EXPECT_TRUE(IsApiError(*r1, 404, "invalid_request_error", "not_found"));
  const auto extra = c.read_response(1s);
  EXPECT_FALSE(extra.has_value()) << "the gateway ran the body as a request and answered "
                                  << (extra ? std::to_string(extra->status) + " " + extra->body : "");
  EXPECT_TRUE(stack().fake->find_request(marker).is_null()) << "the smuggled chat reached the upstream";
}

}  // namespace
}  // namespace it
