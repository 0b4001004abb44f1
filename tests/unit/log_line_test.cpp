// The log line formatter: every event is one line, a JSON object whatever the
// message holds (quotes, newlines, control characters, invalid UTF-8), with
// request_id and access fields as members; text lines stay one line too.
#include "logging/log_line.h"
#include "logging/access_log.h"
#include "logging/request_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace modelgw::logging {
namespace {

using nlohmann::json;

std::string format(Format f, std::string_view payload,
                   spdlog::level::level_enum level = spdlog::level::info) {
  LineFormatter formatter(f);
  spdlog::details::log_msg msg("test", level, spdlog::string_view_t(payload.data(), payload.size()));
  spdlog::memory_buf_t out;
  formatter.format(msg, out);
  return std::string(out.data(), out.size());
}

json parse_line(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line: " << line;
  return json::parse(line.substr(0, line.size() - 1));  // throws when it is not JSON
}

TEST(LogLineTest, JsonLineHasTimeLevelAndMessage) {
  const json j = parse_line(format(Format::json, "hello", spdlog::level::warn));
  EXPECT_EQ(j["msg"], "hello");
  EXPECT_EQ(j["level"], "warn");
  const std::string ts = j["ts"];
  ASSERT_EQ(ts.size(), 24u) << ts;  // 2026-01-02T03:04:05.678Z
  EXPECT_EQ(ts[10], 'T');
  EXPECT_EQ(ts.back(), 'Z');
}

TEST(LogLineTest, ErrorLevelIsNamedError) {
  EXPECT_EQ(parse_line(format(Format::json, "x", spdlog::level::err))["level"], "error");
}

TEST(LogLineTest, QuotesBackslashesNewlinesAndControlCharactersAreEscaped) {
  const std::string nasty = "a \"quoted\" \\ back\nslash\r\ttab \x01\x1f end\"}{\"level\":\"x";
  const std::string line = format(Format::json, nasty);
  const json j = parse_line(line);
  EXPECT_EQ(j["msg"], nasty);
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j.size(), 3u) << "a message cannot add members: " << line;
}

TEST(LogLineTest, InvalidUtf8BecomesReplacementCharacters) {
  const std::string bad = std::string("ok \xff\xfe bytes \xc3(") + " and a cut \xe2\x82";
  const json j = parse_line(format(Format::json, bad));
  const std::string msg = j["msg"];
  EXPECT_NE(msg.find("ok "), std::string::npos);
  EXPECT_NE(msg.find("\xef\xbf\xbd"), std::string::npos) << "U+FFFD in place of the invalid bytes";
  EXPECT_EQ(msg.find('\xff'), std::string::npos);
}

TEST(LogLineTest, ValidUtf8IsKept) {
  const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_EQ(parse_line(format(Format::json, text))["msg"], text);
}

TEST(LogLineTest, RequestIdIsAMember) {
  const json j = parse_line(format(Format::json, request_payload("req_abc", "provider 'x' failed")));
  EXPECT_EQ(j["msg"], "provider 'x' failed");
  EXPECT_EQ(j["request_id"], "req_abc");
}

TEST(LogLineTest, HostileRequestIdCannotBreakTheLine) {
  const json j = parse_line(format(Format::json, request_payload("a\"b\n\xff", "m")));
  EXPECT_EQ(j["msg"], "m");
  EXPECT_TRUE(j["request_id"].is_string());
}

TEST(LogLineTest, AMessageThatLooksLikeFieldsIsOnlyAMessage) {
  // Only a payload made by with_fields carries fields: a stray mark is text.
  const std::string fake = "\x1e{\"request_id\":\"forged\"";
  const json j = parse_line(format(Format::json, fake));
  EXPECT_FALSE(j.contains("request_id"));
  EXPECT_EQ(j["msg"], fake);
  const std::string broken = "\x1e{\"a\":1,\"b}\x1e m";
  EXPECT_EQ(parse_line(format(Format::json, broken))["msg"], broken);
  const json k = parse_line(format(Format::json, request_payload("req_1", "\x1e{\"x\":1}\x1e tail")));
  EXPECT_EQ(k["request_id"], "req_1");
  EXPECT_EQ(k["msg"], "\x1e{\"x\":1}\x1e tail");
  EXPECT_FALSE(k.contains("x"));
}

TEST(LogLineTest, TextLineIsOneLineWithFieldsAfterTheMessage) {
  const std::string line = format(Format::text, request_payload("req_9", "two\nlines \x01"));
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  EXPECT_NE(line.find(" info two\\nlines \\x01 request_id=req_9\n"), std::string::npos) << line;
}

// Through the output the process gives it: the access line's members, and
// its off switch.
class AccessLogTest : public ::testing::Test {
 protected:
  void TearDown() override { configure_access_log(nullptr, Format::json, AccessFormat::json); }
  LineOutput output() {
    return [this](std::string_view line) { out_ << line; };
  }

  static AccessRecord record() {
    AccessRecord r;
    r.request_id = "req_1";
    r.method = "POST";
    r.path = "/v1/chat/completions";
    r.status = 429;
    r.error_code = "rate_limited";
    r.bytes = 321;
    r.duration_us = 1500;
    r.tenant = "acme";
    r.alias = "house-chat";
    r.provider = "openai";
    r.streamed = true;
    return r;
  }

  std::ostringstream out_;
};

TEST_F(AccessLogTest, JsonAccessLineHasTheRequestsFields) {
  configure_access_log(output(), Format::json, AccessFormat::json);
  write_access(record());
  const json j = parse_line(out_.str());
  EXPECT_EQ(j["log"], "access");
  EXPECT_EQ(j["request_id"], "req_1");
  EXPECT_EQ(j["method"], "POST");
  EXPECT_EQ(j["path"], "/v1/chat/completions");
  EXPECT_EQ(j["status"], 429);
  EXPECT_EQ(j["error"], "rate_limited");
  EXPECT_EQ(j["bytes"], 321);
  EXPECT_EQ(j["duration_us"], 1500);
  EXPECT_EQ(j["tenant"], "acme");
  EXPECT_EQ(j["alias"], "house-chat");
  EXPECT_EQ(j["provider"], "openai");
  EXPECT_EQ(j["streamed"], true);
  EXPECT_EQ(j["trace_id"], "");
  EXPECT_FALSE(j.contains("tokens")) << "no chain ran: no tokens, attempts or pii";
}

TEST_F(AccessLogTest, AChainsRequestLineCarriesTokensAttemptsAndPii) {
  configure_access_log(output(), Format::json, AccessFormat::json);
  AccessRecord r = record();
  r.tokens = 517;
  r.attempts = 2;
  r.pii = "mask";
  write_access(r);
  const json j = parse_line(out_.str());
  EXPECT_EQ(j["tokens"], 517);
  EXPECT_EQ(j["attempts"], 2);
  EXPECT_EQ(j["pii"], "mask");
}

TEST_F(AccessLogTest, ValuesCannotBreakTheLineOrAddMembers) {
  configure_access_log(output(), Format::json, AccessFormat::json);
  AccessRecord r = record();
  const std::string alias = "a\"},\"status\":200,\"x\":\"\n\x01\xff\xc3(";
  r.alias = alias;
  write_access(r);
  const json j = parse_line(out_.str());
  EXPECT_EQ(j["alias"], "a\"},\"status\":200,\"x\":\"\n\x01\xEF\xBF\xBD\xEF\xBF\xBD(");
  EXPECT_EQ(j["status"], 429);
  EXPECT_FALSE(j.contains("x"));
}

TEST_F(AccessLogTest, TextLinesKeepTheMembersAsPairsOnOneLine) {
  configure_access_log(output(), Format::text, AccessFormat::json);
  AccessRecord r = record();
  r.tenant = "ac\nme";
  write_access(r);
  const std::string line = out_.str();
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  EXPECT_NE(line.find(" info access log=access request_id=req_1 method=POST "), std::string::npos) << line;
  EXPECT_NE(line.find(" tenant=ac\\nme "), std::string::npos) << line;
}

TEST_F(AccessLogTest, CombinedAccessLineIsOneMessage) {
  configure_access_log(output(), Format::json, AccessFormat::combined);
  write_access(record());
  const json j = parse_line(out_.str());
  EXPECT_EQ(j["request_id"], "req_1");
  EXPECT_EQ(j["msg"],
            "- acme [-] \"POST /v1/chat/completions HTTP/1.1\" 429 321 \"-\" \"-\" 1500us rate_limited");
}

TEST_F(AccessLogTest, OffWritesNothing) {
  configure_access_log(nullptr, Format::json, AccessFormat::json);
  EXPECT_FALSE(access_log_enabled());
  write_access(record());
  EXPECT_TRUE(out_.str().empty());
}

}  // namespace
}  // namespace modelgw::logging
