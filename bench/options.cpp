#include "options.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string_view>

#ifndef MODELGW_BIN
#define MODELGW_BIN "modelgw"
#endif
#ifndef MOCK_UPSTREAM_BIN
#define MOCK_UPSTREAM_BIN "bench_mock_upstream"
#endif
#ifndef MODELGW_PLUGIN_DIR
#define MODELGW_PLUGIN_DIR "plugins"
#endif

namespace bench {
namespace {

constexpr const char* kUsage = R"(usage: gateway_bench [options]

Starts the mock upstream, nginx in front of it and modelgw in front of it, and
runs each scenario against nginx and against modelgw in the same run, so every
figure is also a ratio modelgw / nginx. Prints a summary; exit 0 when nothing
failed (the attacker scenario's client errors are a result, not a failure).

scenarios:
  --scenarios LIST       comma-separated, from saturation, latency, sse, attack,
                         front_doors (the default: these five) and the older
                         phases direct (direct vs gateway, closed loop at C and
                         C=1) and hold (--streams at once through the gateway);
                         not in the default either: responses (e) and
                         messages_embeddings (f), see README.md
  --quick                short sizes for a smoke run (each can still be set)
(a) saturation, front_doors, and the direct phase:
  --concurrency N        keep-alive connections of the closed loop, one epoll
                         thread (64)
  --warmup S             warm-up seconds (2)
  --duration S           measured seconds (10)
  --low-warmup S         warm-up seconds of the direct phase's C=1 pass (1)
  --low-duration S       measured seconds of the direct phase's C=1 pass (5)
  --body-bytes N         size of the JSON request body (1024)
  --pii-mode MODE        the gateway's PII mode: off, flag, block, mask (flag, the default)
  --request-timeout-ms N per socket operation (10000)
  --skip-load            leave out saturation, latency and direct
  --rounds N             run (a) and (b) N times, the proxies in turn, and give
                         each ratio's median and range over the rounds, each
                         taken within one round (1)
(b) latency:
  --rate R               open-loop requests per second (200)
  --latency-warmup S     (1)
  --latency-duration S   (10)
(c) sse:
  --sse-streams N        streams per proxy (10000)
  --sse-rate R           streams opened per second (2500)
  --sse-interval-ms N    between two events of a stream (2000)
  --sse-events N         content events per stream (5); then finish, usage
                         and [DONE], each one interval later
(d) attack:
  --attackers K          idle/trickling connections (10000)
  --attack-open-rate R   attacker connections opened per second (5000)
  --attack-rate R        the normal client's requests per second (200)
  --attack-duration S    the normal client's measured seconds (10)
  --attack-timeout-ms N  the normal client's bound per socket operation (5000)
hold (older phase):
  --streams N            concurrent SSE streams through the gateway (1000)
  --stream-hold S        seconds each stream stays open (15)
  --stream-words N       content chunks per stream (40); the delay between
                         chunks is hold / (words + 3)
  --stream-timeout S     bound on the whole stream phase (hold + 30)
  --skip-streams         leave out sse and hold
  --no-access-log        run the gateway with logging.access_log: false
  --gateway-defaults     leave server and provider max_connections at modelgw's
                         defaults (as packaged) instead of sizing them for the run
environment:
  --modelgw PATH         gateway binary (built-in default)
  --mock-upstream PATH   the mock upstream (built-in default)
  --mock-threads N       the mock's event-loop threads (1)
  --fake-upstream PATH   use tests/fake_upstream (thread per connection) instead of the mock
  --nginx PATH           nginx binary (/usr/sbin/nginx, Debian's nginx-light)
  --no-nginx             modelgw alone: no baseline, no ratios
  --plugin-dir DIR       gateway plugins folder (built-in default)
  --keep-temp            keep the temp dir (configs, database, logs)
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

std::vector<std::string> split_list(const std::string& value) {
  static const std::vector<std::string> kKnown = {"saturation", "latency", "sse",       "attack",
                                                  "direct",     "hold",    "responses", "messages_embeddings",
                                                  "front_doors"};
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= value.size()) {
    const auto comma = value.find(',', pos);
    const std::string item = value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) {
      if (std::find(kKnown.begin(), kKnown.end(), item) == kKnown.end())
        usage_error("unknown scenario '" + item + "'");
      out.push_back(item);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (out.empty()) usage_error("--scenarios needs at least one scenario");
  return out;
}

// Short sizes for a smoke run; options given on the command line still win.
void apply_quick(Options& o) {
  o.warmup_s = 1;
  o.duration_s = 3;
  o.low_warmup_s = 0.5;
  o.low_duration_s = 2;
  o.latency_warmup_s = 0.5;
  o.latency_duration_s = 3;
  o.sse_streams = 1000;
  o.sse_interval_ms = 1000;
  o.sse_events = 2;
  o.attackers = 1000;
  o.attack_duration_s = 3;
  o.streams = 200;
  o.stream_hold_s = 5;
  o.stream_words = 5;
}

}  // namespace

bool Options::runs(const std::string& name) const {
  return std::find(scenarios.begin(), scenarios.end(), name) != scenarios.end();
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.modelgw_bin = MODELGW_BIN;
  o.mock_upstream_bin = MOCK_UPSTREAM_BIN;
  o.plugin_dir = MODELGW_PLUGIN_DIR;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--quick") apply_quick(o);
  }
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
    const bool is_flag = name == "skip-load" || name == "skip-streams" || name == "keep-temp" ||
                         name == "quick" || name == "no-nginx" || name == "gateway-defaults" ||
                         name == "no-access-log";
    if (is_flag) {
      if (inline_value) usage_error("--" + name + " takes no value");
      if (name == "no-nginx") o.skip_nginx = true;
      if (name == "skip-load") o.skip_load = true;
      if (name == "skip-streams") o.skip_streams = true;
      if (name == "gateway-defaults") o.gateway_defaults = true;
      if (name == "no-access-log") o.access_log = false;
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
    if (name == "rounds") {
      o.rounds = to_int(name, value, 1, 20);
    } else if (name == "concurrency") {
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
    } else if (name == "scenarios") {
      o.scenarios = split_list(value);
    } else if (name == "rate") {
      o.rate = to_seconds(name, value, 1);
    } else if (name == "latency-warmup") {
      o.latency_warmup_s = to_seconds(name, value, 0);
    } else if (name == "latency-duration") {
      o.latency_duration_s = to_seconds(name, value, 0.1);
    } else if (name == "sse-streams") {
      o.sse_streams = to_int(name, value, 1, 100000);
    } else if (name == "sse-rate") {
      o.sse_open_rate = to_seconds(name, value, 1);
    } else if (name == "sse-interval-ms") {
      o.sse_interval_ms = to_int(name, value, 0, 600000);
    } else if (name == "sse-events") {
      o.sse_events = to_int(name, value, 1, 10000);
    } else if (name == "attackers") {
      o.attackers = to_int(name, value, 1, 100000);
    } else if (name == "attack-open-rate") {
      o.attack_open_rate = to_seconds(name, value, 1);
    } else if (name == "attack-rate") {
      o.attack_rate = to_seconds(name, value, 1);
    } else if (name == "attack-duration") {
      o.attack_duration_s = to_seconds(name, value, 0.1);
    } else if (name == "attack-timeout-ms") {
      o.attack_timeout_ms = to_int(name, value, 100, 600000);
    } else if (name == "mock-upstream") {
      o.mock_upstream_bin = value;
    } else if (name == "mock-threads") {
      o.mock_threads = to_int(name, value, 1, 64);
    } else if (name == "nginx") {
      o.nginx_bin = value;
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
  const auto drop = [&](std::initializer_list<const char*> names) {
    for (const char* n : names) std::erase(o.scenarios, std::string(n));
  };
  if (o.skip_load) drop({"saturation", "latency", "direct"});
  if (o.skip_streams) drop({"sse", "hold"});
  return o;
}

}  // namespace bench
