#include "provider_harness.h"

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

namespace provider_test {
namespace {

// Loaded once and never unloaded, like the gateway does for its lifetime.
boost::dll::shared_library& library() {
  static boost::dll::shared_library lib(MGW_PROVIDER_PLUGIN, boost::dll::load_mode::rtld_now);
  return lib;
}

FakeHost& shared_host() {
  static FakeHost host;
  return host;
}

}  // namespace

std::string_view default_config() {
  static const std::string config = std::string(R"({"api_key":")") + MGW_PROVIDER_TEST_KEY + "\"}";
  return config;
}

mgw_plugin_entry_fn plugin_entry() {
  return library().get<const mgw_plugin_descriptor*(const mgw_host_api*)>(MGW_ENTRY_SYMBOL);
}

const mgw_plugin_descriptor& descriptor() {
  const mgw_plugin_descriptor* d = plugin_entry()(shared_host().api());
  if (d == nullptr) {
    throw std::runtime_error("the plugin refused a conforming host");
  }
  return *d;
}

const mgw_provider_hooks& hooks() {
  return *static_cast<const mgw_provider_hooks*>(descriptor().hooks);
}

std::string fixture(std::string_view name) {
  const std::string path = std::string(MGW_PROVIDER_FIXTURES) + "/" + std::string(name);
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Recorder::Recorder() {
  sink.struct_size = sizeof sink;
  sink.host_data = this;
  sink.callback_body = [](void* self, mgw_str b) {
    auto* r = static_cast<Recorder*>(self);
    r->events.emplace_back("body");
    r->rec.sink.callback_body(&r->rec, b);
  };
  sink.callback_chunk = [](void* self, mgw_str c) {
    auto* r = static_cast<Recorder*>(self);
    r->events.emplace_back("chunk");
    r->rec.sink.callback_chunk(&r->rec, c);
  };
  sink.callback_usage = [](void* self, const mgw_usage* u) {
    auto* r = static_cast<Recorder*>(self);
    r->events.emplace_back("usage");
    r->rec.sink.callback_usage(&r->rec, u);
  };
  sink.callback_error = [](void* self, const mgw_error_info* e) {
    auto* r = static_cast<Recorder*>(self);
    r->events.emplace_back("error");
    r->rec.sink.callback_error(&r->rec, e);
  };
}

int Recorder::count(std::string_view kind) const {
  int n = 0;
  for (const auto& e : events) {
    n += e == kind ? 1 : 0;
  }
  return n;
}

std::vector<Json> Recorder::chunks() const {
  std::vector<Json> out;
  out.reserve(rec.chunks.size());
  for (const auto& c : rec.chunks) {
    out.push_back(Json::parse(c));
  }
  return out;
}

Provider::Provider(std::string_view config_json) {
  TextRecorder error;
  const mgw_status st = hooks().on_provider_new(host_.api(), mgw::str(config_json), &provider_, &error.sink);
  if (st != MGW_OK || provider_ == nullptr) {
    throw std::runtime_error("provider config refused: " + error.text);
  }
}

Provider::~Provider() {
  if (provider_ != nullptr) {
    hooks().on_provider_destroy(provider_);
  }
}

mgw_status Provider::build(const CallContext& call, std::string_view body, RequestRecorder& out,
                           Recorder& error) const {
  const mgw_call_context ctx = call.get();
  return hooks().on_build_request(provider_, &ctx, mgw::str(body), &out.sink, &error.sink);
}

mgw_status Provider::parse(const CallContext& call, int status, std::string_view body, Recorder& out,
                           const std::vector<std::pair<std::string, std::string>>& headers) const {
  std::vector<mgw_header> raw;
  raw.reserve(headers.size());
  for (const auto& [n, v] : headers) {
    raw.push_back(mgw_header{mgw::str(n), mgw::str(v)});
  }
  const mgw_call_context ctx = call.get();
  return hooks().on_parse_response(provider_, &ctx, status, raw.data(), raw.size(), mgw::str(body),
                                   &out.sink);
}

std::pair<mgw_status, std::string> try_config(std::string_view config_json) {
  FakeHost host;
  TextRecorder error;
  mgw_provider* p = reinterpret_cast<mgw_provider*>(0x1);  // must be reset on failure
  const mgw_status st = hooks().on_provider_new(host.api(), mgw::str(config_json), &p, &error.sink);
  if (st == MGW_OK) {
    hooks().on_provider_destroy(p);
  } else if (p != nullptr) {
    ADD_FAILURE() << "on_provider_new left *out set after failing";
  }
  return {st, error.text};
}

Stream::Stream(const Provider& provider, const CallContext& call) {
  const mgw_call_context ctx = call.get();
  if (hooks().on_stream_new(provider.get(), &ctx, &stream_) != MGW_OK || stream_ == nullptr) {
    throw std::runtime_error("on_stream_new failed");
  }
}

Stream::~Stream() {
  if (stream_ != nullptr) {
    hooks().on_stream_destroy(stream_);
  }
}

mgw_status Stream::feed(std::string_view bytes, Recorder& out) {
  return hooks().on_stream_data(stream_, mgw::str(bytes), &out.sink);
}

mgw_status Stream::end(Recorder& out) {
  return hooks().on_stream_end(stream_, &out.sink);
}

std::vector<std::string_view> whole(std::string_view s) {
  return {s};
}

std::vector<std::string_view> byte_by_byte(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out.push_back(s.substr(i, 1));
  }
  return out;
}

std::vector<std::string_view> random_pieces(std::string_view s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> len(0, 40);  // 0: an empty read happens too
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = std::min(len(rng), s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

void run_stream(const Provider& provider, const CallContext& call,
                const std::vector<std::string_view>& pieces, Recorder& out) {
  Stream stream(provider, call);
  for (auto piece : pieces) {
    ASSERT_EQ(stream.feed(piece, out), MGW_OK);
  }
  ASSERT_EQ(stream.end(out), MGW_OK);
}

CallContext stream_call() {
  CallContext c;
  c.stream = true;
  return c;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) {
      return false;
    }
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
        return false;
      }
    }
    i += n;
  }
  return true;
}

Json Built::body() const {
  Json j = Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "the upstream body is not JSON: " << req.body;
  return j;
}

mgw::testing::RecordedError Built::refusal() const {
  return error.rec.error.value_or(mgw::testing::RecordedError{});
}

std::unique_ptr<Built> build(const Provider& provider, const CallContext& call,
                             std::string_view client_body) {
  auto b = std::make_unique<Built>();
  b->status = provider.build(call, client_body, b->req, b->error);
  return b;
}

std::unique_ptr<Built> build(std::string_view client_body) {
  static const Provider provider;  // read-only after creation, as the ABI allows sharing it
  return build(provider, CallContext{}, client_body);
}

}  // namespace provider_test
