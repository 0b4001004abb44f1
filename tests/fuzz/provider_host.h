// The host side of the provider fuzz targets: the plugin compiled into the
// target (its entry symbol linked in, not loaded), one provider created from a
// minimal configuration, and a response sink that records what the plugin
// emits and stops the run (a fuzz finding) as soon as the plugin breaks a
// promise plugin.h makes to the host: a hook that throws (MGW_INTERNAL), a
// chunk or body that is not one JSON object (a chunk: on one line), output
// after an error, an error that quotes the configured api_key or is not a
// 4xx/5xx, a log line that quotes the api_key.
#pragma once

#include <modelgw/plugin.h>

#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

// The api_key the provider is configured with; no error message may hold it.
inline constexpr std::string_view kApiKey = "fuzzKey0Abc123Def456Ghi789";

// The hook table of the plugin linked into this target (checked once).
const mgw_provider_hooks& provider_hooks();
// The provider every run uses, created once from {"api_key": kApiKey}.
mgw_provider* provider();
// A call context with fixed values (the same for every run).
mgw_call_context call_context(bool stream);

// Prints `what` and aborts: libFuzzer records the input as a crash.
[[noreturn]] void finding(std::string_view what);
// finding() unless `status` is MGW_OK.
void expect_ok(mgw_status status, std::string_view hook);

// Records every callback as one line ("chunk {...}", "usage 1 2 3 0",
// "error 502 provider_failed ...", "body {...}") and checks each as it comes.
class Transcript {
 public:
  Transcript();
  Transcript(const Transcript&) = delete;
  Transcript& operator=(const Transcript&) = delete;

  const mgw_response_sink* sink() const { return &sink_; }
  const std::vector<std::string>& lines() const { return lines_; }
  bool failed() const { return failed_; }
  int bodies() const { return bodies_; }

 private:
  static void on_body(void* self, mgw_str json);
  static void on_chunk(void* self, mgw_str json);
  static void on_usage(void* self, const mgw_usage* usage);
  static void on_error(void* self, const mgw_error_info* info);

  void after_error(std::string_view what) const;

  mgw_response_sink sink_{};
  std::vector<std::string> lines_;
  bool failed_ = false;
  int bodies_ = 0;
};

}  // namespace fuzz
