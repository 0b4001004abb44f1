// Shared by the provider plugins' fixture tests: loads the plugin .so under
// test with Boost.DLL, as the gateway would, and offers short helpers to drive
// its hooks with the SDK's fake host and recorders. Each test executable
// compiles provider_harness.cpp and descriptor_test.cpp (the checks every
// provider's entry symbol and descriptor must pass) with MGW_PROVIDER_NAME (the
// name the descriptor must give), MGW_PROVIDER_PLUGIN (the .so),
// MGW_PROVIDER_FIXTURES (its fixtures folder) and MGW_PROVIDER_TEST_KEY
// (the api_key a default Provider is configured with).
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/testing/fake_host.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace provider_test {

using Json = nlohmann::ordered_json;
using mgw::testing::CallContext;
using mgw::testing::FakeHost;
using mgw::testing::RequestRecorder;
using mgw::testing::ResponseRecorder;
using mgw::testing::TextRecorder;

// The plugin's entry symbol, from the .so loaded once per test process.
mgw_plugin_entry_fn plugin_entry();
// The descriptor and provider hook table for a conforming host.
const mgw_plugin_descriptor& descriptor();
const mgw_provider_hooks& hooks();

// The bytes of fixtures/<name>; fails the test when the file is missing.
std::string fixture(std::string_view name);

// A ResponseRecorder that also keeps the order of the callbacks ("usage",
// "body", "chunk", "error"), so tests can check what came after what.
struct Recorder {
  ResponseRecorder rec;
  std::vector<std::string> events;
  mgw_response_sink sink{};

  Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  int count(std::string_view kind) const;
  // rec.chunks parsed.
  std::vector<Json> chunks() const;
};

// {"api_key": MGW_PROVIDER_TEST_KEY}: the provider block a default Provider uses.
std::string_view default_config();

// One provider created from `config_json` with its own fake host; destroyed
// with the object.
class Provider {
 public:
  explicit Provider(std::string_view config_json = default_config());
  ~Provider();
  Provider(const Provider&) = delete;
  Provider& operator=(const Provider&) = delete;

  mgw_provider* get() const { return provider_; }
  FakeHost& host() { return host_; }

  mgw_status build(const CallContext& call, std::string_view body, RequestRecorder& out,
                   Recorder& error) const;
  mgw_status parse(const CallContext& call, int status, std::string_view body, Recorder& out,
                   const std::vector<std::pair<std::string, std::string>>& headers = {}) const;

 private:
  FakeHost host_;
  mgw_provider* provider_ = nullptr;
};

// One on_build_request call and what it produced.
struct Built {
  mgw_status status = MGW_INTERNAL;
  RequestRecorder req;
  Recorder error;
  // The vendor request body, parsed (fails the test when it is not JSON).
  Json body() const;
  // The refusal, or a default RecordedError when there was none.
  mgw::testing::RecordedError refusal() const;
};
std::unique_ptr<Built> build(const Provider& provider, const CallContext& call, std::string_view client_body);
// The same with a shared default Provider and a non-streaming call.
std::unique_ptr<Built> build(std::string_view client_body);

// Result of on_provider_new for a config: status and the error text.
std::pair<mgw_status, std::string> try_config(std::string_view config_json);

// One stream handle; destroyed with the object.
class Stream {
 public:
  Stream(const Provider& provider, const CallContext& call);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  mgw_status feed(std::string_view bytes, Recorder& out);
  mgw_status end(Recorder& out);

 private:
  mgw_provider_stream* stream_ = nullptr;
};

// Ways to cut a transcript into the pieces a socket might deliver.
std::vector<std::string_view> whole(std::string_view s);
std::vector<std::string_view> byte_by_byte(std::string_view s);
std::vector<std::string_view> random_pieces(std::string_view s, unsigned seed);

// Feeds `pieces` then ends the stream, recording into `out`.
void run_stream(const Provider& provider, const CallContext& call,
                const std::vector<std::string_view>& pieces, Recorder& out);

// A streaming call context.
CallContext stream_call();

// True when `s` is valid UTF-8.
bool valid_utf8(std::string_view s);

}  // namespace provider_test
