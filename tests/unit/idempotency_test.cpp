// The idempotency step's pure parts: which Idempotency-Key values are keys,
// the request digest (canonical: member order and whitespace do not count;
// body and feature do), the stored form of an answer and its replay, and a
// flight's view for followers.
#include "idempotency/flight.h"
#include "idempotency/idempotency_key.h"
#include "idempotency/stored_response.h"
#include "util/sha256_hex.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace modelgw::idempotency {
namespace {

http::Request with_headers(std::vector<http::Field> fields) {
  http::Request r;
  r.method = "POST";
  r.target = "/v1/chat/completions";
  r.fields = std::move(fields);
  return r;
}

TEST(IdempotencyKey, AbsentIsNoKeyAndAPrintableValueIsTheKey) {
  EXPECT_TRUE(std::holds_alternative<std::monostate>(read_key(with_headers({{"Content-Type", "x"}}))));
  auto k = read_key(with_headers({{"idempotency-key", "a b~!{}"}}));
  ASSERT_TRUE(std::holds_alternative<std::string>(k));
  EXPECT_EQ(std::get<std::string>(k), "a b~!{}");
  EXPECT_TRUE(std::holds_alternative<std::string>(
      read_key(with_headers({{"Idempotency-Key", std::string(255, 'x')}}))));
}

TEST(IdempotencyKey, MalformedOrRepeatedKeysAre400NamingTheHeader) {
  for (const std::string& bad : {std::string(), std::string(256, 'x'), std::string("caf\xc3\xa9"),
                                 std::string("a\tb"), std::string("a\x7f"), std::string("a\x01")}) {
    auto k = read_key(with_headers({{"Idempotency-Key", bad}}));
    ASSERT_TRUE(std::holds_alternative<errors::ApiError>(k)) << bad.size();
    const auto& e = std::get<errors::ApiError>(k);
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.code, "invalid_parameter");
    EXPECT_EQ(e.param, "Idempotency-Key");
    EXPECT_EQ(e.message.find(bad.empty() ? "\x01" : bad), std::string::npos) << "never echoes the key";
  }
  auto twice = read_key(with_headers({{"Idempotency-Key", "a"}, {"IDEMPOTENCY-KEY", "a"}}));
  ASSERT_TRUE(std::holds_alternative<errors::ApiError>(twice));
  EXPECT_NE(std::get<errors::ApiError>(twice).message.find("more than once"), std::string::npos);
}

TEST(IdempotencyKey, TheDigestIsCanonicalAndCoversBodyAndFeature) {
  const auto a = nlohmann::json::parse(R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
  const auto b =
      nlohmann::json::parse(R"({ "messages" : [ {"content":"hi", "role":"user"} ], "model" : "m" })");
  EXPECT_EQ(request_digest(a, ""), request_digest(b, ""));
  EXPECT_EQ(request_digest(a, "").size(), 64u);
  EXPECT_NE(request_digest(a, ""), request_digest(a, "search"));
  auto c = a;
  c["messages"][0]["content"] = "hi!";
  EXPECT_NE(request_digest(a, ""), request_digest(c, ""));
  auto p = a;
  p["prompt"] = {{"name", "greet"}, {"version", 2}};
  auto q = a;
  q["prompt"] = {{"name", "greet"}, {"version", 3}};
  EXPECT_NE(request_digest(p, ""), request_digest(q, ""));
}

// Bodies compare as JSON: a number is its value however it is written.
TEST(IdempotencyKey, NumbersWrittenDifferentlyAreOneBody) {
  const auto digest = [](const char* body) { return request_digest(nlohmann::json::parse(body), ""); };
  const std::string one = digest(R"({"model":"m","max_tokens":1,"temperature":0.5})");
  for (const char* same : {R"({"model":"m","max_tokens":1.0,"temperature":0.5})",
                           R"({"model":"m","max_tokens":1e0,"temperature":5e-1})",
                           R"({"model":"m","max_tokens":10E-1,"temperature":0.50})"}) {
    EXPECT_EQ(digest(same), one) << same;
  }
  EXPECT_NE(digest(R"({"model":"m","max_tokens":2,"temperature":0.5})"), one);
  EXPECT_NE(digest(R"({"model":"m","max_tokens":"1","temperature":0.5})"), one) << "a string is not a number";
  EXPECT_EQ(digest(R"({"a":[-0.0]})"), digest(R"({"a":[0]})"));
  // Digests of bodies without such numbers are what they always were.
  EXPECT_EQ(digest(R"({"a":"x","b":[1,true,null,0.25]})"),
            modelgw::util::sha256_hex(std::string(R"({"a":"x","b":[1,true,null,0.25]})") + '\0'));
}

TEST(StoredResponse, RoundTripsWholeAnswersAndStreams) {
  StoredResponse whole;
  whole.request_id = "req_1";
  whole.status = 200;
  whole.headers = {{"X-Dropped-Params", "seed"}};
  whole.body = "{\"id\":\"x\",\"text\":\"\xe2\x82\xac\"}";
  auto back = decode(encode(whole));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->body, whole.body);
  EXPECT_EQ(back->headers, whole.headers);
  EXPECT_FALSE(back->stream);

  StoredResponse stream;
  stream.request_id = "req_2";
  stream.status = 200;
  stream.stream = true;
  stream.events = {"data: {\"a\":1}\n\n", "data: [DONE]\n\n"};
  stream.ended = true;
  back = decode(encode(stream));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->events, stream.events);
  EXPECT_TRUE(back->ended);

  StoredResponse marker = whole;
  marker.too_large = true;
  back = decode(encode(marker));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->too_large);
  EXPECT_TRUE(back->body.empty());
  EXPECT_EQ(back->request_id, "req_1");
}

TEST(StoredResponse, AnyBytesOfAnAnswerRoundTripAsJson) {
  // Quotes, backslashes, every control character, DEL and non-ASCII round
  // trip exactly; bytes that are not UTF-8 come back as U+FFFD.
  StoredResponse r;
  r.request_id = "req_\"3\"";
  r.status = 200;
  r.headers = {{"X-Note", "a\tb"}};
  std::string body = "q\" b\\ / \x7f \xc3\xa9 ";
  for (int c = 0; c < 0x20; ++c) body.push_back(static_cast<char>(c));
  r.body = body + "\xff end";
  auto back = decode(encode(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->request_id, r.request_id);
  EXPECT_EQ(back->headers, r.headers);
  EXPECT_EQ(back->body, body + "\xef\xbf\xbd end");
  EXPECT_TRUE(nlohmann::json::accept(encode(r)));
}

TEST(StoredResponse, TextThatIsNotOneDecodesToNothing) {
  for (const char* bad :
       {"", "[]", "{}", "{\"request_id\":\"r\",\"status\":\"200\",\"stream\":false}",
        "{\"request_id\":\"r\",\"status\":99,\"stream\":false,\"headers\":[],\"body\":\"\"}",
        "{\"request_id\":\"r\",\"status\":200,\"stream\":true,\"headers\":[[1,2]]}"}) {
    EXPECT_FALSE(decode(bad)) << bad;
  }
}

TEST(StoredResponse, RateLimitStandingIsNotReplayed) {
  EXPECT_FALSE(replays_header("x-ratelimit-remaining-requests"));
  EXPECT_FALSE(replays_header("Retry-After"));
  EXPECT_TRUE(replays_header("X-Dropped-Params"));
  EXPECT_TRUE(replays_header("Cache-Control"));
}

TEST(Flight, FollowersSeeTheOwnersAnswerAsItIsBufferedAndAreWokenOnEachChange) {
  Flight f(1, "k", "d", "req_owner");
  int woken = 0;
  const auto id = f.add_waker([&] { ++woken; });
  f.set_state(Flight::State::running);
  f.on_head(200, true, {{"Cache-Control", "no-cache"}, {"x-ratelimit-limit-requests", "5"}});
  f.on_chunk("data: 1\n\n");
  f.on_chunk("data: 2\n\n");
  auto v = f.view(1);
  EXPECT_TRUE(v.has_head);
  EXPECT_TRUE(v.head.stream);
  EXPECT_EQ(v.head.request_id, "req_owner");
  ASSERT_EQ(v.head.headers.size(), 1u) << "rate-limit standing is dropped";
  ASSERT_EQ(v.events.size(), 1u);
  EXPECT_EQ(v.events[0], "data: 2\n\n");
  f.on_end();
  f.set_state(Flight::State::done);
  EXPECT_EQ(woken, 6);
  f.remove_waker(id);
  f.set_state(Flight::State::released);
  EXPECT_EQ(woken, 6);
  EXPECT_TRUE(f.view(0).ended);
  const auto kept = decode(f.kept(1 << 20).stored);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->events.size(), 2u);
}

TEST(Flight, TheAnswerIsKeptInItsStoredFormOrAsAMarkerWhenOverTheBound) {
  Flight f(1, "k", "d", "req_owner");
  f.on_head(200, false, {{"Content-Type", "application/json"}, {"x-ratelimit-limit-requests", "5"}});
  const std::string body = R"({"id":"chatcmpl-1","choices":[{"message":{"content":"a \"quoted\" word\n"}}]})";
  f.on_body(body);
  const std::size_t size =
      body.size() + std::string("Content-Type").size() + std::string("application/json").size();

  const auto whole = f.kept(size);
  EXPECT_FALSE(whole.too_large);
  EXPECT_EQ(whole.bytes, size);
  const auto stored = decode(whole.stored);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->request_id, "req_owner");
  EXPECT_EQ(stored->body, body) << "the body round-trips byte for byte";
  ASSERT_EQ(stored->headers.size(), 1u) << "rate-limit standing is not kept";
  EXPECT_FALSE(stored->too_large);

  const auto over = f.kept(size - 1);
  EXPECT_TRUE(over.too_large);
  EXPECT_EQ(over.bytes, size);
  const auto marker = decode(over.stored);
  ASSERT_TRUE(marker.has_value());
  EXPECT_TRUE(marker->too_large);
  EXPECT_EQ(marker->request_id, "req_owner");
  EXPECT_EQ(marker->status, 200);
  EXPECT_TRUE(marker->body.empty()) << "the marker holds no answer";
}

}  // namespace
}  // namespace modelgw::idempotency
