// Command-line options of gateway_bench.
#pragma once

#include <optional>
#include <string>

namespace bench {

struct Options {
  // Non-streamed load.
  int concurrency = 16;
  double warmup_s = 2;
  double duration_s = 10;
  double low_warmup_s = 1;  // the C=1 pass
  double low_duration_s = 5;
  int body_bytes = 1024;
  std::string pii_mode = "flag";  // the gateway's pii.default_mode (its config default)
  int request_timeout_ms = 10000;
  bool skip_load = false;
  // Open streams.
  int streams = 1000;
  double stream_hold_s = 15;  // how long each stream stays open (words * chunk delay)
  int stream_words = 40;
  double stream_timeout_s = 0;  // bound on the stream phase; 0: hold + 30 s
  bool skip_streams = false;
  // Environment.
  std::string modelgw_bin;
  std::string fake_upstream_bin;
  std::string plugin_dir;
  bool keep_temp = false;
  std::optional<std::string> json_path;
};

// Parses argv; on --help prints usage and exits 0, on a bad option prints
// the problem and usage to stderr and exits 2.
Options parse_options(int argc, char** argv);

}  // namespace bench
