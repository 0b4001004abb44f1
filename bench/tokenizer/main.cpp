// tokenizer_bench: single-thread throughput of the o200k_base and
// cl100k_base tokenizers over a generated mixed corpus. See README.md.
//
// Usage: tokenizer_bench [--mib N] [--seconds S]
//   --mib N      corpus size in MiB (default 4)
//   --seconds S  minimum time per measurement (default 2)

#include <modelgw/tokenizer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "corpus.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::size_t mib = 4;
  double seconds = 2.0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--mib" && i + 1 < argc) {
      o.mib = std::strtoul(argv[++i], nullptr, 10);
    } else if (arg == "--seconds" && i + 1 < argc) {
      o.seconds = std::strtod(argv[++i], nullptr);
    } else {
      std::fprintf(stderr, "usage: tokenizer_bench [--mib N] [--seconds S]\n");
      std::exit(2);
    }
  }
  if (o.mib == 0) o.mib = 1;
  return o;
}

// CPU time of this thread: unlike wall time it does not count the time
// other processes on a shared machine hold the core.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Result {
  double mb_per_s;       // 10^6 bytes per CPU second
  double tokens_per_s;   // per CPU second
  double wall_mb_per_s;  // 10^6 bytes per wall-clock second
};

// Repeats `run` over `text` until `seconds` have passed (at least 3 times)
// and keeps the fastest pass: on a shared machine the minimum time is the
// least disturbed one.
template <class Run>
Result measure(std::string_view text, double seconds, Run run) {
  double best_cpu = 1e300;
  double best_wall = 1e300;
  std::size_t tokens = 0;
  const auto start = Clock::now();
  for (int pass = 0; pass < 3 || std::chrono::duration<double>(Clock::now() - start).count() < seconds;
       ++pass) {
    const auto wall0 = Clock::now();
    const double cpu0 = thread_cpu_seconds();
    tokens = run(text);
    best_cpu = std::min(best_cpu, thread_cpu_seconds() - cpu0);
    best_wall = std::min(best_wall, std::chrono::duration<double>(Clock::now() - wall0).count());
  }
  const auto bytes = static_cast<double>(text.size());
  return {bytes / best_cpu / 1e6, static_cast<double>(tokens) / best_cpu, bytes / best_wall / 1e6};
}

void print(const std::string& label, const Result& r) {
  std::printf("  %-14s %7.1f MB/s %11.0f tokens/s   (wall %5.1f MB/s; %.2f bytes/token)\n", label.c_str(),
              r.mb_per_s, r.tokens_per_s, r.wall_mb_per_s, r.mb_per_s * 1e6 / r.tokens_per_s);
}

}  // namespace

int main(int argc, char** argv) {
  using modelgw::tokenizer::find_encoding;
  const Options opt = parse(argc, argv);
  const auto sections = modelgw::bench::make_corpus(opt.mib << 20);
  const std::string mixed = modelgw::bench::interleave(sections);

  std::printf(
      "tokenizer_bench: %zu-byte mixed corpus (prose, code, CJK, numbers), one thread, best pass of >= %.1f "
      "s\n"
      "MB = 10^6 bytes; rates per second of this thread's CPU time, wall-clock rate in brackets\n",
      mixed.size(), opt.seconds);
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    const auto t0 = Clock::now();
    const auto* enc = find_encoding(name);
    const double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (enc == nullptr) return 1;

    const Result count = measure(mixed, opt.seconds, [&](std::string_view t) { return enc->count(t); });
    const Result encode =
        measure(mixed, opt.seconds, [&](std::string_view t) { return enc->encode(t).size(); });
    std::printf("\n%s (first use built in %.0f ms)\n", name, build_ms);
    print("mixed count", count);
    print("mixed encode", encode);
    for (const auto& s : sections) {
      const Result r = measure(s.text, opt.seconds / 4, [&](std::string_view t) { return enc->count(t); });
      print(s.name + " count", r);
    }
  }
  return 0;
}
