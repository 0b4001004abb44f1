// W3C Trace Context: parsing traceparent strictly, forward-compatible
// versions, tracestate bounds, new ids, and what a request's trace becomes.
#include "trace/trace_context.h"
#include "chat/trace_headers.h"
#include "http/request_trace.h"
#include "http/server_call.h"
#include "usage/journal_line.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace modelgw::trace {
namespace {

constexpr const char* kTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* kParent = "00f067aa0ba902b7";
constexpr const char* kValid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

bool lower_hex_of_size(const std::string& s, std::size_t n) {
  return s.size() == n && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(TraceParent, ValidVersion00IsRead) {
  auto p = parse_traceparent(kValid);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->trace_id, kTrace);
  EXPECT_EQ(p->parent_id, kParent);
  EXPECT_EQ(p->flags, 0x01);
}

TEST(TraceParent, Version00FlagsAreKeptWhole) {
  auto p = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->flags, 0x03);
  p = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->flags, 0x00);
}

TEST(TraceParent, EveryMalformedFormIsRefused) {
  for (const char* bad : {
           "",
           "00",
           // wrong lengths of each field
           "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",    // trace id 31
           "00-4bf92f3577b34da6a3ce929d0e0e47366-00f067aa0ba902b7-01",  // trace id 33
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",    // parent id 15
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b77-01",  // parent id 17
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",    // flags 1
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-011",  // flags 3
           "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // version 1
           "000-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version 3
           // version 00 has nothing after the flags
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
           // separators
           "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
           "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",
           // not hex
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",
           "zz-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
           // surrounding spaces are the transport's to strip, not ours
           " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ",
       }) {
    EXPECT_FALSE(parse_traceparent(bad)) << bad;
  }
}

TEST(TraceParent, UppercaseHexIsRefusedInEveryField) {
  EXPECT_FALSE(parse_traceparent("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"));
  EXPECT_FALSE(parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01"));
  EXPECT_FALSE(parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A"));
  EXPECT_FALSE(parse_traceparent("0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
}

TEST(TraceParent, AllZeroIdsAreRefused) {
  EXPECT_FALSE(parse_traceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01"));
  EXPECT_FALSE(parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"));
}

TEST(TraceParent, VersionFfIsRefused) {
  EXPECT_FALSE(parse_traceparent("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
  EXPECT_FALSE(parse_traceparent("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future"));
}

TEST(TraceParent, FutureVersionIsReadAsVersion00WithItsExtraFields) {
  auto p = parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->trace_id, kTrace);
  EXPECT_EQ(p->parent_id, kParent);
  EXPECT_EQ(p->flags, 0x01);
  // Exactly 55 characters is fine too.
  EXPECT_TRUE(parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"));
  // Of its flags only the sampled bit is known.
  p = parse_traceparent("02-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->flags, 0x01);
}

TEST(TraceParent, FutureVersionStillNeedsItsFieldsRight) {
  // The flags must be followed by the end or a '-'.
  EXPECT_FALSE(parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"));
  EXPECT_FALSE(parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0"));
  EXPECT_FALSE(parse_traceparent("cc-00000000000000000000000000000000-00f067aa0ba902b7-01-x"));
  EXPECT_FALSE(parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01-x"));
  EXPECT_FALSE(parse_traceparent("Cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"));
}

TEST(TraceParent, FormatWritesVersion00) {
  EXPECT_EQ(format_traceparent(kTrace, kParent, 0x01), kValid);
  EXPECT_EQ(format_traceparent(kTrace, kParent, 0xab),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ab");
}

TEST(TraceIds, AreLowercaseHexOfTheRightSizeAndDiffer) {
  std::set<std::string> traces;
  std::set<std::string> spans;
  for (int i = 0; i < 1000; ++i) {
    const std::string t = new_trace_id();
    const std::string s = new_span_id();
    ASSERT_TRUE(lower_hex_of_size(t, 32)) << t;
    ASSERT_TRUE(lower_hex_of_size(s, 16)) << s;
    traces.insert(t);
    spans.insert(s);
  }
  EXPECT_EQ(traces.size(), 1000u);
  EXPECT_EQ(spans.size(), 1000u);
  // What we make, we can read.
  EXPECT_TRUE(parse_traceparent(format_traceparent(new_trace_id(), new_span_id(), 0)));
}

TEST(TraceState, ForwardableOnlyWhenWellFormedAndBounded) {
  EXPECT_TRUE(forwardable_tracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"));
  EXPECT_TRUE(forwardable_tracestate("vendor@tenant=x , other=y"));
  EXPECT_TRUE(forwardable_tracestate("a=1,,b=2"));  // empty members are allowed
  EXPECT_FALSE(forwardable_tracestate("novalue"));
  EXPECT_FALSE(forwardable_tracestate("=x"));
  EXPECT_FALSE(forwardable_tracestate("UPPER=x"));
  EXPECT_FALSE(forwardable_tracestate("k=a=b"));
  EXPECT_FALSE(forwardable_tracestate("k=x\x01y"));
  EXPECT_FALSE(forwardable_tracestate(std::string("k=") + std::string(kMaxTracestate, 'v')));
  std::string members;
  for (int i = 0; i < 33; ++i) members += (i ? ",k" : "k") + std::to_string(i) + "=v";
  EXPECT_FALSE(forwardable_tracestate(members)) << "more than 32 members";
  members = members.substr(0, members.rfind(','));
  EXPECT_TRUE(forwardable_tracestate(members)) << "32 members";
}

TEST(RequestTrace, ContinuesAValidTraceWithANewSpan) {
  const RequestTrace t = start_request_trace(std::string_view(kValid), "rojo=00f067aa0ba902b7");
  EXPECT_EQ(t.trace_id, kTrace);
  EXPECT_EQ(t.parent_id, kParent);
  EXPECT_EQ(t.flags, 0x01);
  EXPECT_TRUE(lower_hex_of_size(t.span_id, 16));
  EXPECT_NE(t.span_id, kParent);
  EXPECT_EQ(t.tracestate, "rojo=00f067aa0ba902b7");
  auto up = parse_traceparent(t.traceparent());
  ASSERT_TRUE(up);
  EXPECT_EQ(up->trace_id, kTrace);
  EXPECT_EQ(up->parent_id, t.span_id);
  EXPECT_EQ(up->flags, 0x01);
}

TEST(RequestTrace, StartsANewTraceWhenAbsentOrInvalid) {
  for (std::optional<std::string_view> header :
       {std::optional<std::string_view>{}, std::optional<std::string_view>{"00-garbage"},
        std::optional<std::string_view>{"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}) {
    const RequestTrace t = start_request_trace(header, "rojo=1");
    EXPECT_TRUE(lower_hex_of_size(t.trace_id, 32));
    EXPECT_NE(t.trace_id, kTrace);
    EXPECT_TRUE(t.parent_id.empty());
    EXPECT_EQ(t.flags, 0);
    EXPECT_TRUE(t.tracestate.empty()) << "the tracestate of a trace not continued is dropped";
    EXPECT_TRUE(parse_traceparent(t.traceparent()));
  }
}

TEST(RequestTrace, UnforwardableTracestateIsDroppedButTheTraceKept) {
  const RequestTrace t = start_request_trace(std::string_view(kValid), std::string(600, 'x'));
  EXPECT_EQ(t.trace_id, kTrace);
  EXPECT_TRUE(t.tracestate.empty());
}

http::Request request_with(std::vector<http::Field> fields) {
  http::Request r;
  r.method = "POST";
  r.target = "/v1/chat/completions";
  r.fields = std::move(fields);
  return r;
}

TEST(RequestTraceOfHeaders, NamesAreCaseInsensitiveAndTracestateFieldsCombine) {
  auto t =
      http::trace_of(request_with({{"TraceParent", kValid}, {"tracestate", "a=1"}, {"TraceState", "b=2"}}));
  EXPECT_EQ(t.trace_id, kTrace);
  EXPECT_EQ(t.tracestate, "a=1,b=2");
}

TEST(RequestTraceOfHeaders, ARepeatedTraceparentStartsANewTrace) {
  auto t = http::trace_of(request_with({{"traceparent", kValid}, {"traceparent", kValid}}));
  EXPECT_NE(t.trace_id, kTrace);
  EXPECT_TRUE(t.parent_id.empty());
}

// A channel nothing is written to: the call is only constructed.
class NoChannel : public http::ResponseChannel {
 public:
  net::Task<bool> write(std::string_view) override { co_return false; }
};

TEST(ServerCallTrace, IsDecidedWhenTheCallIsMadeAndNotedForTheAccessLog) {
  net::asio::io_context io;
  NoChannel channel;
  net::CancelSignal hangup;
  http::ServerCall call(request_with({{"traceparent", kValid}}), "req_x", channel, hangup, io.get_executor());
  EXPECT_EQ(call.trace().trace_id, kTrace);
  EXPECT_EQ(call.trace().parent_id, kParent);
  EXPECT_EQ(call.access_note().trace_id, kTrace);
  http::ServerCall fresh(request_with({}), "req_y", channel, hangup, io.get_executor());
  EXPECT_TRUE(lower_hex_of_size(fresh.trace().trace_id, 32));
  EXPECT_EQ(fresh.access_note().trace_id, fresh.trace().trace_id);
}

TEST(TraceHeaders, ReplaceWhatAPluginSet) {
  const RequestTrace t = start_request_trace(std::string_view(kValid), "k=v");
  std::vector<std::pair<std::string, std::string>> headers{
      {"Authorization", "Bearer x"}, {"TraceParent", "00-bogus"}, {"tracestate", "old=1"}};
  chat::set_trace_headers(headers, t);
  ASSERT_EQ(headers.size(), 3u);
  EXPECT_EQ(headers[0].first, "Authorization");
  EXPECT_EQ(headers[1], (std::pair<std::string, std::string>{"traceparent", t.traceparent()}));
  EXPECT_EQ(headers[2], (std::pair<std::string, std::string>{"tracestate", "k=v"}));
  // No tracestate header when there is none to forward.
  const RequestTrace fresh = start_request_trace(std::nullopt, "");
  headers.clear();
  chat::set_trace_headers(headers, fresh);
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0].first, "traceparent");
}

TEST(JournalLine, KeepsTheTraceIdAndReadsOldLinesWithout) {
  plugins::UsageRow row;
  row.request_id = "req_1";
  row.trace_id = kTrace;
  std::string line;
  usage::append_journal_line(row, line);
  auto back = usage::parse_journal_line(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->trace_id, kTrace);
  // A line journaled before trace ids were kept.
  const std::string old =
      R"({"request_id":"req_old","tenant_id":1,"key_id":2,"alias":"a","provider":"p","upstream_model":"m",)"
      R"("prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"http_status":200,"error_code":"",)"
      R"("latency_us":10,"ttft_us":-1,"streamed":false,"created_unix_ms":5,"prompt_name":"","prompt_version":0,)"
      R"("pii_action":"","pii_findings":"","feature":"","cached_prompt_tokens":0,"cost_micros":0,)"
      R"("price_input_micros":0,"price_output_micros":0,"price_cached_micros":0,"reason":"","charges":[]})";
  back = usage::parse_journal_line(old);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->request_id, "req_old");
  EXPECT_EQ(back->trace_id, "");
}

}  // namespace
}  // namespace modelgw::trace
