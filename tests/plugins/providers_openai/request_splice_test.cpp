// on_build_request with the host's member index (ABI 1.1): the spliced body
// must mean exactly what the parsing path builds, member order included.
#include "chat/body_members.h"
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace openai_test {
namespace {

const char* const kBodies[] = {
    R"({"model":"svc-flash","messages":[{"role":"user","content":"Hi"}]})",
    R"({ "model" : "svc-flash" , "messages": [ {"role": "user", "content": "a \"quoted\" } ] text"} ],
        "temperature": 0.7, "seed": 12345678901234, "request_id": "req_x" })",
    R"({"messages":[],"stream":true,"model":"m","stream_options":{"include_usage":false,"x":1}})",
    R"({"messages":[],"stream":false,"model":"m","stream_options":null})",
    R"({"messages":[],"stream":null,"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]})",
    R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"{[\\\"]}"}]}],"user":"u-1"})",
};

Json body_of(const Provider& p, mgw::testing::CallContext ctx, std::string_view body, bool indexed) {
  if (indexed) {
    auto index = modelgw::chat::index_members(body);
    EXPECT_TRUE(index.has_value()) << body;
    if (index) ctx.members = *index;
  }
  auto b = build(p, ctx, body);
  EXPECT_EQ(b->status, MGW_OK) << body;
  return Json::parse(b->req.body);
}

TEST(BuildRequestSpliced, MeansWhatTheParsedPathBuilds) {
  Provider p;
  for (const char* body : kBodies) {
    for (bool stream : {false, true}) {
      mgw::testing::CallContext ctx;
      ctx.stream = stream;
      EXPECT_EQ(body_of(p, ctx, body, true), body_of(p, ctx, body, false)) << body << " stream=" << stream;
    }
  }
}

TEST(BuildRequestSpliced, RefusesAStreamOptionsThatIsNotAnObject) {
  Provider p;
  const std::string body = R"({"model":"m","messages":[],"stream_options":[1]})";
  mgw::testing::CallContext ctx;
  ctx.stream = true;
  auto index = modelgw::chat::index_members(body);
  ASSERT_TRUE(index.has_value());
  ctx.members = *index;
  auto b = build(p, ctx, body);
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT);
  ASSERT_EQ(b->error.events.size(), 1u);
}

}  // namespace
}  // namespace openai_test
