// No exception crosses the C boundary, and one provider serves many threads.
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace gemini_test {
namespace {

// A response sink whose `throwing` callback throws, as a buggy host might;
// the plugin must turn that into MGW_INTERNAL and a 500, never unwind into C.
struct ThrowingRecorder : Recorder {
  explicit ThrowingRecorder(std::string_view throwing) {
    if (throwing == "body") {
      sink.callback_body = [](void*, mgw_str) { throw std::runtime_error("host failed"); };
    } else if (throwing == "chunk") {
      sink.callback_chunk = [](void*, mgw_str) { throw std::runtime_error("host failed"); };
    } else if (throwing == "usage") {
      sink.callback_usage = [](void*, const mgw_usage*) { throw std::runtime_error("host failed"); };
    }
  }
};

TEST(Robustness, AThrowingBodySinkBecomesAnInternalError) {
  Provider p;
  ThrowingRecorder out("body");
  EXPECT_EQ(p.parse(CallContext{}, 200, fixture("generate_text.json"), out), MGW_INTERNAL);
  ASSERT_TRUE(out.rec.error.has_value());
  EXPECT_EQ(out.rec.error->http_status, 500);
  EXPECT_EQ(out.rec.error->code, "internal_error");
  EXPECT_TRUE(out.rec.error->retryable);  // spec §7.2: a 500 may be retried
  const auto logs = p.host().logs();
  ASSERT_FALSE(logs.empty());
  EXPECT_NE(logs.back().second.find("on_parse_response"), std::string::npos);
  EXPECT_EQ(logs.back().second.find("host failed"), std::string::npos);  // exception text may carry data
}

TEST(Robustness, AThrowingRequestSinkBecomesAnInternalError) {
  Provider p;
  RequestRecorder req;
  req.sink.callback_body = [](void*, mgw_str) { throw std::bad_alloc(); };
  Recorder err;
  EXPECT_EQ(p.build(CallContext{}, R"({"model":"a","messages":[]})", req, err), MGW_INTERNAL);
  ASSERT_TRUE(err.rec.error.has_value());
  EXPECT_EQ(err.rec.error->http_status, 500);
  EXPECT_EQ(err.rec.error->code, "internal_error");
}

TEST(Robustness, AThrowingChunkSinkFailsTheStreamOnce) {
  Provider p;
  ThrowingRecorder out("chunk");
  Stream s(p, stream_call());
  EXPECT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_INTERNAL);
  EXPECT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_OK);
  EXPECT_EQ(s.end(out), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"});  // one 500, nothing after it
  ASSERT_TRUE(out.rec.error.has_value());
  EXPECT_EQ(out.rec.error->http_status, 500);
  EXPECT_EQ(out.rec.error->code, "internal_error");
  EXPECT_FALSE(out.rec.error->retryable);  // the chunk may have reached the client
}

TEST(Robustness, AThrowingUsageSinkAtTheEndFailsTheStream) {
  Provider p;
  ThrowingRecorder out("usage");
  Stream s(p, stream_call());
  EXPECT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_OK);
  EXPECT_EQ(s.end(out), MGW_INTERNAL);
  ASSERT_TRUE(out.rec.error.has_value());
  EXPECT_EQ(out.rec.error->code, "internal_error");
}

TEST(Robustness, NullArgumentsAreRefusedNotDereferenced) {
  const mgw_provider_hooks& h = hooks();
  Recorder out;
  mgw_call_context call = CallContext{}.get();
  EXPECT_EQ(h.on_parse_response(nullptr, &call, 200, nullptr, 0, mgw_str{}, &out.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h.on_build_request(nullptr, &call, mgw_str{}, nullptr, &out.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h.on_provider_new(nullptr, mgw_str{}, nullptr, nullptr), MGW_INVALID_ARGUMENT);
  mgw_provider_stream* s = nullptr;
  EXPECT_EQ(h.on_stream_new(nullptr, &call, &s), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(h.on_stream_data(nullptr, mgw_str{}, &out.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h.on_stream_end(nullptr, &out.sink), MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(out.events.empty());
}

TEST(Robustness, ANullErrorSinkIsTolerated) {
  Provider p;
  RequestRecorder req;
  const mgw_call_context ctx = CallContext{}.get();
  const std::string body = R"({"model":"m","messages":[{"role":"robot"}]})";
  EXPECT_EQ(hooks().on_build_request(p.get(), &ctx, mgw::str(body), &req.sink, nullptr),
            MGW_INVALID_ARGUMENT);
}

TEST(Robustness, NullHeadersWithACountAreNotRead) {
  Provider p;
  Recorder out;
  const mgw_call_context ctx = CallContext{}.get();
  const std::string body = fixture("error_429_retry_info.json");
  EXPECT_EQ(hooks().on_parse_response(p.get(), &ctx, 429, nullptr, 3, mgw::str(body), &out.sink), MGW_OK);
  EXPECT_EQ(out.rec.error->retry_after_ms, 22000);
}

TEST(Robustness, OneProviderServesManyThreadsAtOnce) {
  Provider p;
  const std::string completion = fixture("generate_function_call.json");
  const std::string transcript = fixture("stream_function_call.sse");
  std::atomic<int> failures{0};
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        CallContext call;
        call.alias = "alias-" + std::to_string(t);
        call.upstream_model = "gemini-" + std::to_string(t);
        RequestRecorder req;
        Recorder err;
        if (p.build(call, R"({"model":"x","messages":[{"role":"user","content":"hi"}]})", req, err) !=
                MGW_OK ||
            req.path != "/models/gemini-" + std::to_string(t) + ":generateContent") {
          ++failures;
        }
        Recorder res;
        p.parse(call, 200, completion, res);
        if (Json::parse(res.rec.body)["model"] != call.alias) {
          ++failures;
        }
        Recorder chunks;
        call.stream = true;
        Stream s(p, call);
        s.feed(transcript, chunks);
        s.end(chunks);
        if (chunks.rec.chunks.size() != 3 || Json::parse(chunks.rec.chunks[0])["model"] != call.alias) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace gemini_test
