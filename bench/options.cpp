#include "options.h"

#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string_view>

#ifndef MODELGW_BIN
#define MODELGW_BIN "modelgw"
#endif
#ifndef FAKE_UPSTREAM_BIN
#define FAKE_UPSTREAM_BIN "fake_upstream"
#endif
#ifndef MODELGW_PLUGIN_DIR
#define MODELGW_PLUGIN_DIR "plugins"
#endif

namespace bench {
namespace {

constexpr const char* kUsage = R"(usage: gateway_bench [options]

Starts fake_upstream and modelgw, measures non-streamed latency/throughput
directly against the fake upstream and through the gateway, then holds N SSE
streams open through the gateway. Prints a summary; exit 0 when nothing failed.

non-streamed load:
  --concurrency N        workers (keep-alive connections) in the main pass (16)
  --warmup S             warm-up seconds of the main pass (2)
  --duration S           measured seconds of the main pass (10)
  --low-warmup S         warm-up seconds of the C=1 pass (1)
  --low-duration S       measured seconds of the C=1 pass (5)
  --body-bytes N         size of the JSON request body (1024)
  --pii-mode MODE        the gateway's PII mode: off, flag, block, mask (flag, the default)
  --request-timeout-ms N per socket operation (10000)
  --skip-load            leave out the non-streamed passes
open streams:
  --streams N            concurrent SSE streams through the gateway (1000)
  --stream-hold S        seconds each stream stays open (15)
  --stream-words N       content chunks per stream (40); the delay between
                         chunks is hold / words
  --stream-timeout S     bound on the whole stream phase (hold + 30)
  --skip-streams         leave out the stream phase
environment:
  --modelgw PATH         gateway binary (built-in default)
  --fake-upstream PATH   fake upstream binary (built-in default)
  --plugin-dir DIR       gateway plugins folder (built-in default)
  --keep-temp            keep the temp dir (config, database, logs)
  --json FILE            also write the results as JSON
  --help
)";

[[noreturn]] void usage_error(const std::string& message) {
  std::cerr << "gateway_bench: " << message << "\n\n" << kUsage;
  std::exit(2);
}

int to_int(const std::string& name, const std::string& value, int min, int max) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(value, &used);
    if (used != value.size() || v < min || v > max) throw std::out_of_range(value);
    return static_cast<int>(v);
  } catch (const std::exception&) {
    usage_error("--" + name + " needs a whole number from " + std::to_string(min) + " to " +
                std::to_string(max) + ", not '" + value + "'");
  }
}

double to_seconds(const std::string& name, const std::string& value, double min) {
  try {
    std::size_t used = 0;
    const double v = std::stod(value, &used);
    if (used != value.size() || !(v >= min) || v > 86400) throw std::out_of_range(value);
    return v;
  } catch (const std::exception&) {
    usage_error("--" + name + " needs a number of seconds >= " + std::to_string(min) + ", not '" + value +
                "'");
  }
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  o.modelgw_bin = MODELGW_BIN;
  o.fake_upstream_bin = FAKE_UPSTREAM_BIN;
  o.plugin_dir = MODELGW_PLUGIN_DIR;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) usage_error("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const bool is_flag = name == "skip-load" || name == "skip-streams" || name == "keep-temp";
    if (is_flag) {
      if (inline_value) usage_error("--" + name + " takes no value");
      if (name == "skip-load") o.skip_load = true;
      if (name == "skip-streams") o.skip_streams = true;
      if (name == "keep-temp") o.keep_temp = true;
      continue;
    }
    std::string value;
    if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      usage_error("--" + name + " needs a value");
    }
    if (name == "concurrency") {
      o.concurrency = to_int(name, value, 1, 4096);
    } else if (name == "warmup") {
      o.warmup_s = to_seconds(name, value, 0);
    } else if (name == "duration") {
      o.duration_s = to_seconds(name, value, 0.1);
    } else if (name == "low-warmup") {
      o.low_warmup_s = to_seconds(name, value, 0);
    } else if (name == "low-duration") {
      o.low_duration_s = to_seconds(name, value, 0.1);
    } else if (name == "body-bytes") {
      o.body_bytes = to_int(name, value, 128, 1 << 24);
    } else if (name == "pii-mode") {
      if (value != "off" && value != "flag" && value != "block" && value != "mask")
        usage_error("--pii-mode is one of off, flag, block, mask");
      o.pii_mode = value;
    } else if (name == "request-timeout-ms") {
      o.request_timeout_ms = to_int(name, value, 100, 600000);
    } else if (name == "streams") {
      o.streams = to_int(name, value, 1, 60000);
    } else if (name == "stream-hold") {
      o.stream_hold_s = to_seconds(name, value, 0);
    } else if (name == "stream-words") {
      o.stream_words = to_int(name, value, 1, 100000);
    } else if (name == "stream-timeout") {
      o.stream_timeout_s = to_seconds(name, value, 1);
    } else if (name == "modelgw") {
      o.modelgw_bin = value;
    } else if (name == "fake-upstream") {
      o.fake_upstream_bin = value;
    } else if (name == "plugin-dir") {
      o.plugin_dir = value;
    } else if (name == "json") {
      o.json_path = value;
    } else {
      usage_error("unknown option '--" + name + "'");
    }
  }
  if (o.stream_timeout_s <= 0) o.stream_timeout_s = o.stream_hold_s + 30;
  return o;
}

}  // namespace bench
