#include "chat/plugin_sinks.h"

#include <modelgw/sdk.hpp>

#include <gtest/gtest.h>

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

}  // namespace
