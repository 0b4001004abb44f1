#include "loaded_provider.h"

#include <modelgw/sdk.hpp>

#include <dlfcn.h>

#include <chrono>
#include <stdexcept>

namespace modelgw::bench {
namespace {

mgw_host_api make_host() {
  mgw_host_api host{};
  host.struct_size = sizeof host;
  host.abi_major = MGW_ABI_MAJOR;
  host.abi_minor = MGW_ABI_MINOR;
  host.callback_log_enabled = [](void*, mgw_log_level level) -> int32_t { return level >= MGW_LOG_WARN; };
  host.callback_log = [](void*, mgw_log_level, mgw_str) {};
  host.callback_now_unix_ms = [](void*) -> int64_t {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  };
  host.callback_monotonic_ns = [](void*) -> int64_t {
    using namespace std::chrono;
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
  };
  return host;
}

// Valid while the process runs: the plugins keep the pointer.
const mgw_host_api kHost = make_host();

mgw_response_sink counting_sink(StreamTally& tally) {
  mgw_response_sink sink{};
  sink.struct_size = sizeof sink;
  sink.host_data = &tally;
  sink.callback_body = [](void*, mgw_str) {};
  sink.callback_chunk = [](void* self, mgw_str chunk) {
    auto* t = static_cast<StreamTally*>(self);
    ++t->chunks;
    t->chunk_bytes += chunk.len;
  };
  sink.callback_usage = [](void* self, const mgw_usage*) { ++static_cast<StreamTally*>(self)->usages; };
  sink.callback_error = [](void* self, const mgw_error_info*) { ++static_cast<StreamTally*>(self)->errors; };
  return sink;
}

}  // namespace

LoadedProvider::LoadedProvider(const std::string& path, std::string_view config_json) {
  library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    throw std::runtime_error("cannot load " + path + ": " + dlerror());
  }
  auto entry = reinterpret_cast<mgw_plugin_entry_fn>(dlsym(library_, MGW_ENTRY_SYMBOL));
  const mgw_plugin_descriptor* d = entry != nullptr ? entry(&kHost) : nullptr;
  if (d == nullptr || d->kind != MGW_KIND_PROVIDER || d->hooks == nullptr) {
    throw std::runtime_error(path + " is not a provider plugin this host can load");
  }
  hooks_ = static_cast<const mgw_provider_hooks*>(d->hooks);
  if (hooks_->on_provider_new(&kHost, mgw::str(config_json), &provider_, nullptr) != MGW_OK) {
    throw std::runtime_error(path + " refused the configuration");
  }
}

LoadedProvider::~LoadedProvider() {
  if (provider_ != nullptr) {
    hooks_->on_provider_destroy(provider_);
  }
  // The library stays loaded, as the gateway keeps its plugins for its lifetime.
}

StreamTally LoadedProvider::run_stream(const std::vector<std::string_view>& pieces) const {
  StreamTally tally;
  const mgw_response_sink sink = counting_sink(tally);
  mgw_call_context call{};
  call.struct_size = sizeof call;
  call.request_id = mgw::str("req_bench");
  call.alias = mgw::str("bench-alias");
  call.upstream_model = mgw::str("bench-model");
  call.created_unix = 1700000000;
  call.stream = 1;
  call.prompt_tokens = 8;
  auto note = [&tally](mgw_status s) {
    if (s != MGW_OK && tally.status == MGW_OK) tally.status = s;
  };
  mgw_provider_stream* stream = nullptr;
  note(hooks_->on_stream_new(provider_, &call, &stream));
  if (stream == nullptr) {
    return tally;
  }
  for (std::string_view piece : pieces) {
    note(hooks_->on_stream_data(stream, mgw::str(piece), &sink));
  }
  note(hooks_->on_stream_end(stream, &sink));
  hooks_->on_stream_destroy(stream);
  return tally;
}

}  // namespace modelgw::bench
