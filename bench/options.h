// Command-line options of gateway_bench.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bench {

struct Options {
  // Non-streamed load.
  int concurrency = 64;  // as wrk -c64 (see README.md, "The nginx baseline")
  double warmup_s = 2;
  double duration_s = 10;
  double low_warmup_s = 1;  // the C=1 pass
  double low_duration_s = 5;
  int body_bytes = 1024;
  std::string pii_mode = "flag";  // the gateway's pii.default_mode (its config default)
  int request_timeout_ms = 10000;
  bool skip_load = false;
  int rounds = 1;  // (a) and (b) repeated, the proxies in turn (paired_rounds.h)
  // Open streams.
  int streams = 1000;
  double stream_hold_s = 15;  // how long each stream stays open (words * chunk delay)
  int stream_words = 40;
  double stream_timeout_s = 0;  // bound on the stream phase; 0: hold + 30 s
  bool skip_streams = false;
  // The gateway runs on its default connection caps (server and provider
  // max_connections unset), as the packaged config does.
  bool gateway_defaults = false;
  bool access_log = true;  // logging.access_log of the gateway under test
  // Which parts run (see README.md): the comparison scenarios "saturation",
  // "latency", "sse", "attack", "front_doors", and the older phases "direct"
  // (closed loop direct vs gateway at C and C=1) and "hold" (N streams at once).
  std::vector<std::string> scenarios = {"saturation", "latency", "sse", "attack", "front_doors"};
  bool runs(const std::string& name) const;
  // (b) latency at a fixed rate.
  double rate = 200;
  double latency_warmup_s = 1;
  double latency_duration_s = 10;
  // (c) SSE streams opened at a rate.
  int sse_streams = 10000;
  double sse_open_rate = 2500;
  int sse_interval_ms = 2000;
  int sse_events = 5;
  // (d) attacker.
  int attackers = 10000;
  double attack_open_rate = 5000;
  double attack_rate = 200;
  double attack_duration_s = 10;
  int attack_timeout_ms = 5000;
  // Environment.
  std::string modelgw_bin;
  std::string fake_upstream_bin;  // set: the upstream is fake_upstream instead of the mock
  std::string mock_upstream_bin;
  int mock_threads = 1;
  std::string nginx_bin = "/usr/sbin/nginx";
  bool skip_nginx = false;
  std::string plugin_dir;
  bool keep_temp = false;
  std::optional<std::string> json_path;
};

// Parses argv; on --help prints usage and exits 0, on a bad option prints
// the problem and usage to stderr and exits 2.
Options parse_options(int argc, char** argv);

}  // namespace bench
