// Sinks that drop everything (as a host's failed sink does) leave every hook
// with a defined status, and one provider serves many threads.
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace anthropic_test {
namespace {

// A sink that drops everything, as the host's sinks behave once one of their
// callbacks failed (the ABI: host callbacks never throw; a failed one turns
// the rest of that hook call into no-ops and the host reports the failure).
// It counts the calls made while no hook it was passed to is running.
struct DroppingSink {
  bool hook_running = false;
  int calls = 0;
  int late_calls = 0;
  mgw_response_sink sink{};
  mgw_request_sink request{};

  DroppingSink() {
    sink.struct_size = sizeof sink;
    sink.host_data = this;
    sink.callback_body = [](void* self, mgw_str) { note(self); };
    sink.callback_chunk = [](void* self, mgw_str) { note(self); };
    sink.callback_usage = [](void* self, const mgw_usage*) { note(self); };
    sink.callback_error = [](void* self, const mgw_error_info*) { note(self); };
    request.struct_size = sizeof request;
    request.host_data = this;
    request.callback_method = [](void* self, mgw_str) { note(self); };
    request.callback_path = [](void* self, mgw_str) { note(self); };
    request.callback_header = [](void* self, mgw_str, mgw_str) { note(self); };
    request.callback_body = [](void* self, mgw_str) { note(self); };
  }
  DroppingSink(const DroppingSink&) = delete;
  DroppingSink& operator=(const DroppingSink&) = delete;

  // Runs one hook call with this sink.
  template <typename Hook>
  mgw_status during(Hook&& hook) {
    hook_running = true;
    const mgw_status status = hook();
    hook_running = false;
    return status;
  }

  static void note(void* self) {
    auto* d = static_cast<DroppingSink*>(self);
    ++d->calls;
    d->late_calls += d->hook_running ? 0 : 1;
  }
};

TEST(Robustness, AResponseSinkThatDropsEverythingStillGetsADefinedStatus) {
  Provider p;
  const mgw_provider_hooks& h = hooks();
  const mgw_call_context call = CallContext{}.get();
  const std::string body = fixture("message_text.json");
  DroppingSink dropped;
  EXPECT_EQ(dropped.during([&] {
    return h.on_parse_response(p.get(), &call, 200, nullptr, 0, mgw::str(body), &dropped.sink);
  }),
            MGW_OK);
  EXPECT_GT(dropped.calls, 0);  // usage and body went to the sink, which dropped them
  EXPECT_EQ(dropped.during([&] {
    return h.on_parse_response(p.get(), &call, 503, nullptr, 0, mgw::str("{}"), &dropped.sink);
  }),
            MGW_OK);
  // The provider goes on serving other calls, and never calls the dropping sink again.
  Recorder next;
  EXPECT_EQ(p.parse(CallContext{}, 200, body, next), MGW_OK);
  EXPECT_FALSE(next.rec.body.empty());
  EXPECT_EQ(dropped.late_calls, 0);
}

TEST(Robustness, ARequestSinkThatDropsEverythingStillGetsADefinedStatus) {
  Provider p;
  const mgw_call_context call = CallContext{}.get();
  const std::string body = R"({"model":"a","messages":[{"role":"user","content":"hi"}]})";
  DroppingSink dropped;
  EXPECT_EQ(dropped.during([&] {
    return hooks().on_build_request(p.get(), &call, mgw::str(body), &dropped.request, &dropped.sink);
  }),
            MGW_OK);
  EXPECT_GT(dropped.calls, 0);
  RequestRecorder next;
  Recorder err;
  EXPECT_EQ(p.build(CallContext{}, body, next, err), MGW_OK);
  EXPECT_FALSE(next.body.empty());
  EXPECT_EQ(dropped.late_calls, 0);
}

TEST(Robustness, AStreamWhoseSinkDropsEverythingEndsCleanlyAndNeverCallsItLater) {
  Provider p;
  const std::string transcript = fixture("stream_text.sse");
  const mgw_provider_hooks& h = hooks();
  const mgw_call_context call = stream_call().get();
  mgw_provider_stream* s = nullptr;
  ASSERT_EQ(h.on_stream_new(p.get(), &call, &s), MGW_OK);
  DroppingSink dropped;
  const std::size_t half = transcript.size() / 2;
  EXPECT_EQ(dropped.during([&] {
    return h.on_stream_data(s, mgw::str(std::string_view(transcript).substr(0, half)), &dropped.sink);
  }),
            MGW_OK);
  EXPECT_GT(dropped.calls, 0);
  // The rest goes to another sink: the stream must use the one it is given,
  // never keep the first.
  Recorder rest;
  EXPECT_EQ(h.on_stream_data(s, mgw::str(std::string_view(transcript).substr(half)), &rest.sink), MGW_OK);
  EXPECT_EQ(h.on_stream_end(s, &rest.sink), MGW_OK);
  h.on_stream_destroy(s);
  EXPECT_EQ(dropped.late_calls, 0);
  EXPECT_FALSE(rest.rec.error.has_value());
  EXPECT_TRUE(rest.rec.usage.has_value());

  // A stream whose every call drops everything, the end included.
  ASSERT_EQ(h.on_stream_new(p.get(), &call, &s), MGW_OK);
  DroppingSink all;
  EXPECT_EQ(all.during([&] { return h.on_stream_data(s, mgw::str(transcript), &all.sink); }), MGW_OK);
  EXPECT_EQ(all.during([&] { return h.on_stream_end(s, &all.sink); }), MGW_OK);
  h.on_stream_destroy(s);
  EXPECT_EQ(all.late_calls, 0);
}

TEST(Robustness, NullArgumentsAreRefusedNotDereferenced) {
  const mgw_provider_hooks& h = hooks();
  Recorder out;
  mgw_call_context call = CallContext{}.get();
  RequestRecorder req;
  EXPECT_EQ(h.on_parse_response(nullptr, &call, 200, nullptr, 0, mgw_str{}, &out.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h.on_build_request(nullptr, &call, mgw_str{}, &req.sink, &out.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h.on_provider_new(nullptr, mgw_str{}, nullptr, nullptr), MGW_INVALID_ARGUMENT);
  mgw_provider_stream* s = reinterpret_cast<mgw_provider_stream*>(0x1);
  EXPECT_EQ(h.on_stream_new(nullptr, &call, &s), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(h.on_stream_data(nullptr, mgw_str{}, &out.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h.on_stream_end(nullptr, &out.sink), MGW_INVALID_ARGUMENT);
}

TEST(Robustness, ANullErrorSinkIsToleratedWhenARequestIsRefused) {
  Provider p;
  RequestRecorder req;
  const mgw_call_context ctx = CallContext{}.get();
  const std::string body = R"({"model":"a","messages":[{"role":"user","content":"hi"}],"n":3})";
  EXPECT_EQ(hooks().on_build_request(p.get(), &ctx, mgw::str(body), &req.sink, nullptr),
            MGW_INVALID_ARGUMENT);
}

TEST(Robustness, OneProviderServesManyThreadsAtOnce) {
  Provider p;
  const std::string message = fixture("message_tool_use.json");
  const std::string transcript = fixture("stream_tool_use.sse");
  const std::string request = fixture("request_conversation.json");
  std::atomic<int> failures{0};
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        CallContext call;
        call.alias = "alias-" + std::to_string(t);
        RequestRecorder req;
        Recorder err;
        if (p.build(call, request, req, err) != MGW_OK || Json::parse(req.body)["model"] != "test-model") {
          ++failures;
        }
        Recorder res;
        p.parse(call, 200, message, res);
        if (Json::parse(res.rec.body)["model"] != call.alias) {
          ++failures;
        }
        Recorder chunks;
        call.stream = true;
        Stream s(p, call);
        s.feed(transcript, chunks);
        s.end(chunks);
        if (chunks.rec.error || Json::parse(chunks.rec.chunks[0])["model"] != call.alias) {
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
}  // namespace anthropic_test
