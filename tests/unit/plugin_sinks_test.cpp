#include "chat/plugin_sinks.h"
#include "plugins/callback_guard.h"

#include <modelgw/sdk.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <new>
#include <string>
#include <vector>

namespace {

TEST(PluginSinks, ErrorInfoBecomesTheClientError) {
  mgw_error_info info{};
  info.struct_size = sizeof info;
  info.http_status = 429;
  info.code = mgw::str("rate_limit_exceeded");
  info.message = mgw::str("slow down");
  info.retry_after_ms = 2500;
  auto e = modelgw::chat::to_api_error(info);
  EXPECT_EQ(e.status, 429);
  EXPECT_EQ(e.code, "rate_limit_exceeded");
  EXPECT_EQ(e.retry_after_s, 3);  // rounded up: never tell a client to come back early
  info.retry_after_ms = -1;
  EXPECT_EQ(modelgw::chat::to_api_error(info).retry_after_s, 1);  // a 429 always says when
}

TEST(PluginSinks, NonsenseFromAPluginIsContained) {
  mgw_error_info info{};
  info.struct_size = sizeof info;
  info.http_status = 200;  // not an error status
  info.retry_after_ms = -1;
  auto e = modelgw::chat::to_api_error(info);
  EXPECT_EQ(e.status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_FALSE(e.message.empty());
}

TEST(PluginSinks, CollectorsKeepTheFirstError) {
  modelgw::chat::ResponseCollector c;
  mgw::fail(&c.sink, 502, "provider_failed", "first");
  mgw::fail(&c.sink, 500, "internal_error", "second");
  c.sink.callback_body(c.sink.host_data, mgw::str("{}"));
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->message, "first");
  EXPECT_FALSE(c.has_body);
}

// plugin.h: host callbacks never unwind into the plugin. A failure inside
// one is caught, and every later callback of the call is a no-op.
TEST(CallbackGuard, CatchesEverythingAndTurnsTheRestIntoNoOps) {
  modelgw::plugins::CallbackGuard guard;
  int ran = 0;
  guard.run([&] { ++ran; });
  EXPECT_NO_THROW(guard.run([&]() -> void { throw std::bad_alloc(); }));
  EXPECT_TRUE(guard.failed());
  guard.run([&] { ++ran; });
  EXPECT_EQ(ran, 1) << "a callback after the failure must do nothing";
  static_assert(noexcept(guard.run([] {})));
}

TEST(PluginSinks, TextSinkNeverThrowsAndIgnoresANullPointer) {
  modelgw::plugins::TextCollector t;
  t.sink.callback_text(t.sink.host_data, mgw::str("why"));
  t.sink.callback_text(t.sink.host_data, mgw_str{nullptr, 5});
  EXPECT_EQ(t.text, "why");
}

void header(const mgw_request_sink& s, std::string_view name, std::string_view value) {
  s.callback_header(s.host_data, mgw_str{name.data(), name.size()}, mgw_str{value.data(), value.size()});
}

TEST(RequestCollector, DropsTheHostsHeadersAndKeepsTheRest) {
  modelgw::chat::RequestCollector c;
  for (const char* own : {"Host", "content-length", "Transfer-Encoding", "CONNECTION", "Keep-Alive",
                          "Proxy-Connection", "TE", "Upgrade"}) {
    header(c.sink, own, "x");
  }
  header(c.sink, "Authorization", "Bearer k\tk");  // HTAB is a field character
  c.sink.callback_path(c.sink.host_data, mgw::str("/v1/chat/completions?alt=sse"));
  EXPECT_FALSE(c.state.failed()) << c.state.breach;
  ASSERT_EQ(c.request.headers.size(), 1u);
  EXPECT_EQ(c.request.headers[0].first, "Authorization");
  EXPECT_EQ(c.request.path, "/v1/chat/completions?alt=sse");
}

TEST(RequestCollector, EveryPartThatCouldSmuggleALineFailsTheCall) {
  using Part = std::function<void(const mgw_request_sink&)>;
  const std::vector<std::pair<std::string, Part>> cases = {
      {"method with CRLF", [](const auto& s) { s.callback_method(s.host_data, mgw::str("POST\r\nX: y")); }},
      {"method with a space", [](const auto& s) { s.callback_method(s.host_data, mgw::str("PO ST")); }},
      {"empty method", [](const auto& s) { s.callback_method(s.host_data, mgw::str("")); }},
      {"path with CRLF", [](const auto& s) { s.callback_path(s.host_data, mgw::str("/a\r\nX: y")); }},
      {"path with NUL",
       [](const auto& s) {
         s.callback_path(s.host_data, mgw_str{"/a\0b", 4});
       }},
      {"path with a space", [](const auto& s) { s.callback_path(s.host_data, mgw::str("/a b")); }},
      {"path with non-ASCII", [](const auto& s) { s.callback_path(s.host_data, mgw::str("/caf\xc3\xa9")); }},
      {"value with CR", [](const auto& s) { header(s, "X-A", "a\rb"); }},
      {"value with LF", [](const auto& s) { header(s, "X-A", "a\nb"); }},
      {"value with NUL", [](const auto& s) { header(s, "X-A", std::string_view("a\0b", 3)); }},
      {"value with DEL", [](const auto& s) { header(s, "X-A", "a\x7f"); }},
      {"name with a space", [](const auto& s) { header(s, "X A", "a"); }},
      {"name with a colon", [](const auto& s) { header(s, "X-A:", "a"); }},
      {"empty name", [](const auto& s) { header(s, "", "a"); }},
      {"NULL name with a length",
       [](const auto& s) {
         s.callback_header(s.host_data, mgw_str{nullptr, 3}, mgw::str("a"));
       }},
  };
  for (const auto& [what, part] : cases) {
    SCOPED_TRACE(what);
    modelgw::chat::RequestCollector c;
    part(c.sink);
    EXPECT_TRUE(c.state.failed());
    EXPECT_FALSE(c.state.breach.empty());
    // The rest of the call is a no-op: nothing more is taken.
    c.sink.callback_body(c.sink.host_data, mgw::str("{}"));
    header(c.sink, "X-Later", "fine");
    EXPECT_TRUE(c.request.body.empty());
    EXPECT_TRUE(c.request.headers.empty());
  }
}

TEST(ResponseCollector, StructsSmallerThanOneZeroAreRefused) {
  {
    modelgw::chat::ResponseCollector c;
    mgw_usage u{};
    u.struct_size = 4;
    c.sink.callback_usage(c.sink.host_data, &u);
    EXPECT_TRUE(c.state.failed());
    EXPECT_FALSE(c.usage);
  }
  {
    modelgw::chat::ResponseCollector c;
    mgw_usage u{};
    u.struct_size = MGW_USAGE_SIZE_1_0;  // a 1.0 plugin: no cached_prompt_tokens
    u.prompt_tokens = 3;
    c.sink.callback_usage(c.sink.host_data, &u);
    EXPECT_FALSE(c.state.failed());
    ASSERT_TRUE(c.usage);
    EXPECT_EQ(c.usage->prompt_tokens, 3);
  }
  {
    modelgw::chat::ResponseCollector c;
    mgw_error_info e{};
    e.struct_size = sizeof e;
    e.message = mgw_str{nullptr, 10};
    c.sink.callback_error(c.sink.host_data, &e);
    EXPECT_TRUE(c.state.failed()) << "a NULL string with a length is a broken plugin";
    EXPECT_FALSE(c.error);
  }
}

}  // namespace
