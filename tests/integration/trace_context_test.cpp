// W3C trace context through the gateway: a client's traceparent is continued
// upstream (same trace id, the gateway's span as parent, flags and tracestate
// kept); none or an invalid one starts a new trace; the usage record (GET
// /v1/usage) keeps the trace id. Plain and streamed.
#include "harness/checks.h"
#include "harness/stack.h"

#include <regex>

namespace it {
namespace {

constexpr const char* kTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* kParent = "00f067aa0ba902b7";
constexpr const char* kTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

struct Parsed {
  std::string trace_id, parent_id, flags;
};

// A version-00 traceparent as the gateway must send it, or nullopt.
std::optional<Parsed> parse(const std::string& v) {
  static const std::regex re("^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$");
  std::smatch m;
  if (!std::regex_match(v, m, re)) return std::nullopt;
  Parsed p{m[1], m[2], m[3]};
  if (p.trace_id == std::string(32, '0') || p.parent_id == std::string(16, '0')) return std::nullopt;
  return p;
}

class TraceContextTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      stack_ = start_stack();
      reader_ = stack_->gateway->create_key("acme", "chat usage:read").key;
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }

  // A plain chat with `marker` in its text and these extra headers.
  static HttpResponse chat(const std::string& marker, const Headers& extra) {
    HttpRequest r;
    r.body = chat_body("house-chat", marker);
    r.headers = {{"Authorization", "Bearer " + reader_}};
    for (const auto& h : extra) r.headers.push_back(h);
    return http_call(stack_->port(), r);
  }

  // What the fake upstream received for the request holding `marker`.
  static json sent(const std::string& marker) {
    json found;
    eventually([&] {
      found = stack_->fake->find_request(marker);
      return found.is_object();
    });
    return found;
  }

  // The request's record as GET /v1/usage shows it (null if it never appears).
  static json record(const std::string& request_id) {
    json found;
    eventually([&] {
      const json page = http_get(stack_->port(), "/v1/usage?limit=1000", reader_).json();
      if (!page.contains("data")) return false;
      for (const auto& r : page["data"]) {
        if (r["request_id"] == request_id) {
          found = r;
          return true;
        }
      }
      return false;
    });
    return found;
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string reader_;
  static inline std::string setup_error_;
};

TEST_F(TraceContextTest, ValidTraceparentIsContinuedUpstreamAndRecorded) {
  const std::string marker = "trace-valid-1";
  const auto r =
      chat(marker, {{"traceparent", kTraceparent}, {"tracestate", "rojo=00f067aa0ba902b7,congo=t61"}});
  ASSERT_EQ(r.status, 200) << r.body;

  const json up = sent(marker);
  ASSERT_TRUE(up.is_object()) << "the fake upstream never saw the request";
  ASSERT_TRUE(up["headers"].contains("traceparent")) << up["headers"].dump();
  const auto p = parse(up["headers"]["traceparent"].get<std::string>());
  ASSERT_TRUE(p) << up["headers"]["traceparent"];
  EXPECT_EQ(p->trace_id, kTrace) << "the trace id is kept";
  EXPECT_NE(p->parent_id, kParent) << "the parent id is the gateway's own span";
  EXPECT_EQ(p->flags, "01");
  EXPECT_EQ(up["headers"]["tracestate"], "rojo=00f067aa0ba902b7,congo=t61");

  const json rec = record(r.header("x-request-id"));
  ASSERT_TRUE(rec.is_object()) << "no usage record for " << r.header("x-request-id");
  EXPECT_EQ(rec["trace_id"], kTrace);
}

TEST_F(TraceContextTest, NoTraceparentStartsATraceAndRecordsIt) {
  const std::string marker = "trace-none-1";
  const auto r = chat(marker, {});
  ASSERT_EQ(r.status, 200) << r.body;

  const json up = sent(marker);
  ASSERT_TRUE(up.is_object());
  ASSERT_TRUE(up["headers"].contains("traceparent")) << up["headers"].dump();
  const auto p = parse(up["headers"]["traceparent"].get<std::string>());
  ASSERT_TRUE(p) << up["headers"]["traceparent"];
  EXPECT_FALSE(up["headers"].contains("tracestate"));

  const json rec = record(r.header("x-request-id"));
  ASSERT_TRUE(rec.is_object());
  EXPECT_EQ(rec["trace_id"], p->trace_id) << "the record keeps the trace the upstream call was part of";
}

TEST_F(TraceContextTest, InvalidTraceparentIsReplacedNotRefused) {
  for (const std::string bad : {"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "garbage"}) {
    const std::string marker = "trace-invalid-" + std::to_string(std::hash<std::string>{}(bad));
    const auto r = chat(marker, {{"traceparent", bad}, {"tracestate", "rojo=1"}});
    ASSERT_EQ(r.status, 200) << bad << ": " << r.body;
    const json up = sent(marker);
    ASSERT_TRUE(up.is_object()) << bad;
    const auto p = parse(up["headers"].value("traceparent", ""));
    ASSERT_TRUE(p) << bad << " -> " << up["headers"].dump();
    EXPECT_NE(p->trace_id, kTrace) << bad;
    EXPECT_NE(p->trace_id, std::string(32, '0')) << bad;
    EXPECT_FALSE(up["headers"].contains("tracestate")) << "the discarded trace's state goes with it: " << bad;
    const json rec = record(r.header("x-request-id"));
    ASSERT_TRUE(rec.is_object()) << bad;
    EXPECT_EQ(rec["trace_id"], p->trace_id) << bad;
  }
}

TEST_F(TraceContextTest, FutureVersionIsContinued) {
  const std::string marker = "trace-future-1";
  const auto r =
      chat(marker, {{"traceparent", "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const auto p = parse(sent(marker)["headers"].value("traceparent", ""));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->trace_id, kTrace);
  EXPECT_EQ(p->flags, "01");
}

TEST_F(TraceContextTest, StreamedRequestsCarryTheTraceToo) {
  for (const bool given : {true, false}) {
    const std::string marker = std::string("trace-stream-") + (given ? "given" : "fresh");
    Headers extra;
    if (given) extra.emplace_back("traceparent", kTraceparent);
    const auto r = stream_chat(stack_->port(), reader_, chat_body("house-chat", marker, true), 10000, extra);
    ASSERT_EQ(r.status, 200) << r.body;
    const json up = sent(marker);
    ASSERT_TRUE(up.is_object()) << marker;
    const auto p = parse(up["headers"].value("traceparent", ""));
    ASSERT_TRUE(p) << up["headers"].dump();
    if (given) {
      EXPECT_EQ(p->trace_id, kTrace);
      EXPECT_NE(p->parent_id, kParent);
    }
    const json rec = record(r.header("x-request-id"));
    ASSERT_TRUE(rec.is_object()) << marker;
    EXPECT_EQ(rec["stream"], true);
    EXPECT_EQ(rec["trace_id"], p->trace_id);
  }
}

TEST_F(TraceContextTest, EachRequestGetsItsOwnSpan) {
  std::set<std::string> spans;
  for (int i = 0; i < 3; ++i) {
    const std::string marker = "trace-span-" + std::to_string(i);
    ASSERT_EQ(chat(marker, {{"traceparent", kTraceparent}}).status, 200);
    const auto p = parse(sent(marker)["headers"].value("traceparent", ""));
    ASSERT_TRUE(p);
    spans.insert(p->parent_id);
  }
  EXPECT_EQ(spans.size(), 3u);
}

}  // namespace
}  // namespace it
