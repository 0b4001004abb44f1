// provider_decoder_bench: single-thread throughput of each provider plugin's
// stream decoder (on_stream_data), loaded from its shared object the way the
// gateway loads it. See README.md.
//
// Usage: provider_decoder_bench [--plugin-dir DIR] [--baseline-dir DIR] [--mib N]
//                               [--stream-kib N] [--seconds S] [--provider NAME]...

#include "loaded_provider.h"
#include "transcripts.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using modelgw::bench::LoadedProvider;
using modelgw::bench::StreamTally;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string plugin_dir = MODELGW_PLUGIN_DIR;
  std::string baseline_dir;  // empty: no comparison
  std::size_t mib = 4;
  std::size_t stream_kib = 64;
  double seconds = 3.0;
  std::vector<std::string> providers;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: provider_decoder_bench [--plugin-dir DIR] [--baseline-dir DIR] [--mib N] "
               "[--stream-kib N] [--seconds S] [--provider openai|anthropic|gemini]...\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 >= argc) usage();
    const char* value = argv[++i];
    if (arg == "--plugin-dir") {
      o.plugin_dir = value;
    } else if (arg == "--baseline-dir") {
      o.baseline_dir = value;
    } else if (arg == "--mib") {
      o.mib = std::strtoul(value, nullptr, 10);
    } else if (arg == "--stream-kib") {
      o.stream_kib = std::strtoul(value, nullptr, 10);
    } else if (arg == "--seconds") {
      o.seconds = std::strtod(value, nullptr);
    } else if (arg == "--provider") {
      o.providers.emplace_back(value);
    } else {
      usage();
    }
  }
  o.mib = std::max<std::size_t>(o.mib, 1);
  o.stream_kib = std::clamp<std::size_t>(o.stream_kib, 1, o.mib * 1024);
  if (o.providers.empty()) o.providers = {"openai", "anthropic", "gemini"};
  return o;
}

// CPU time of this thread: unlike wall time it leaves out the time other
// processes on a shared machine hold the core.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string transcript_of(const std::string& provider, std::size_t bytes) {
  if (provider == "openai") return modelgw::bench::openai_transcript(bytes);
  if (provider == "anthropic") return modelgw::bench::anthropic_transcript(bytes);
  if (provider == "gemini") return modelgw::bench::gemini_transcript(bytes);
  throw std::runtime_error("unknown provider " + provider);
}

// A config every provider accepts; the key is a made-up one.
constexpr std::string_view kConfig = R"({"api_key":"sk-bench-0123456789abcdefghijklmnop"})";

// One plugin under test and its best pass so far.
struct Subject {
  std::unique_ptr<LoadedProvider> plugin;
  double best_cpu = 1e300;
  double best_wall = 1e300;
};

// One pass: `streams` whole streamed responses. Fails loudly when a decoder
// reports an error: a broken transcript would measure the wrong thing.
void pass(Subject& s, const std::vector<std::string_view>& pieces, std::size_t streams) {
  const auto wall0 = Clock::now();
  const double cpu0 = thread_cpu_seconds();
  for (std::size_t i = 0; i < streams; ++i) {
    const StreamTally t = s.plugin->run_stream(pieces);
    if (t.status != MGW_OK || t.errors != 0 || t.usages != 1 || t.chunks == 0) {
      throw std::runtime_error("the decoder failed on the transcript");
    }
  }
  s.best_cpu = std::min(s.best_cpu, thread_cpu_seconds() - cpu0);
  s.best_wall = std::min(s.best_wall, std::chrono::duration<double>(Clock::now() - wall0).count());
}

}  // namespace

int main(int argc, char** argv) try {
  const Options opt = parse(argc, argv);
  const std::size_t streams = opt.mib * 1024 / opt.stream_kib;
  std::printf(
      "provider_decoder_bench: %zu streams of about %zu KiB per pass, fed in socket-sized reads "
      "(1..2920 bytes),\none thread, best pass of >= %.1f s; MB = 10^6 input bytes per second of this "
      "thread's CPU time (wall-clock rate in brackets)\n",
      streams, opt.stream_kib, opt.seconds);
  if (!opt.baseline_dir.empty()) {
    std::printf("baseline %s and current %s alternate pass by pass\n", opt.baseline_dir.c_str(),
                opt.plugin_dir.c_str());
  }
  for (const std::string& name : opt.providers) {
    const std::string transcript = transcript_of(name, opt.stream_kib * 1024);
    const auto pieces = modelgw::bench::socket_reads(transcript, 7);
    const double mb = static_cast<double>(transcript.size() * streams) / 1e6;
    const std::string file = "/mgw_provider_" + name + ".so";

    Subject current{std::make_unique<LoadedProvider>(opt.plugin_dir + file, kConfig)};
    Subject baseline;
    if (!opt.baseline_dir.empty()) {
      baseline.plugin = std::make_unique<LoadedProvider>(opt.baseline_dir + file, kConfig);
    }
    const auto start = Clock::now();
    const double budget = opt.seconds * (baseline.plugin ? 2 : 1);
    for (int n = 0; n < 3 || std::chrono::duration<double>(Clock::now() - start).count() < budget; ++n) {
      // Alternating keeps both sides under the same machine conditions.
      if (baseline.plugin) pass(baseline, pieces, streams);
      pass(current, pieces, streams);
    }
    std::printf("\n%-10s %zu reads per stream, %.1f bytes per read\n", name.c_str(), pieces.size(),
                static_cast<double>(transcript.size()) / static_cast<double>(pieces.size()));
    if (baseline.plugin) {
      std::printf("  baseline %8.1f MB/s  (wall %8.1f)\n", mb / baseline.best_cpu, mb / baseline.best_wall);
    }
    std::printf("  current  %8.1f MB/s  (wall %8.1f)\n", mb / current.best_cpu, mb / current.best_wall);
    if (baseline.plugin) {
      std::printf("  current / baseline: %.3f\n", baseline.best_cpu / current.best_cpu);
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "provider_decoder_bench: %s\n", e.what());
  return 1;
}
