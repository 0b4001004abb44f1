// One provider plugin loaded from its shared object the way the gateway loads
// it (dlopen, the entry symbol, on_provider_new), to drive its stream hooks.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::bench {

// What one streamed response produced; the sink only counts.
struct StreamTally {
  std::size_t chunks = 0;
  std::size_t chunk_bytes = 0;
  std::size_t usages = 0;
  std::size_t errors = 0;
  mgw_status status = MGW_OK;  // the first non-OK hook status
};

class LoadedProvider {
 public:
  // Loads `path` and creates a provider from `config_json`. Throws
  // std::runtime_error naming the file when any step fails.
  LoadedProvider(const std::string& path, std::string_view config_json);
  ~LoadedProvider();
  LoadedProvider(const LoadedProvider&) = delete;
  LoadedProvider& operator=(const LoadedProvider&) = delete;

  // One whole streamed response: on_stream_new, on_stream_data for each
  // piece, on_stream_end, on_stream_destroy.
  StreamTally run_stream(const std::vector<std::string_view>& pieces) const;

 private:
  void* library_ = nullptr;
  const mgw_provider_hooks* hooks_ = nullptr;
  mgw_provider* provider_ = nullptr;
};

}  // namespace modelgw::bench
