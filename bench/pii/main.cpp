// pii_scan_bench: single-thread throughput and per-scan latency of
// modelgw::pii::Detector::scan over generated messages of 1 KiB to 1 MiB.
// A program, not a test (CTest does not run it). See README.md.
//
// Usage: pii_scan_bench [--seconds S] [--only NAME[,NAME...]]
//   --seconds S  time budget per workload and size (default 0.5; at least 5 scans
//                unless they take over 10x that)
//   --only       workloads to run, by name or name prefix ("adv" = all adversarial)

#include "pii/detector.h"
#include "pii/finding.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "corpus.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace bench = modelgw::bench::pii;

struct Options {
  double seconds = 0.5;
  std::vector<std::string> only;
};

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: pii_scan_bench [--seconds S] [--only NAME[,NAME...]]\nworkloads:");
  for (const auto& w : bench::workloads()) std::fprintf(stderr, " %s", w.name.c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--seconds" && i + 1 < argc) {
      char* end = nullptr;
      o.seconds = std::strtod(argv[++i], &end);
      if (*end != '\0' || !(o.seconds > 0)) usage();
    } else if (arg == "--only" && i + 1 < argc) {
      std::string_view list = argv[++i];
      while (!list.empty()) {
        const auto comma = list.find(',');
        o.only.emplace_back(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
    } else {
      usage();
    }
  }
  return o;
}

bool selected(const Options& o, const std::string& name) {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(),
                     [&](const std::string& p) { return name.rfind(p, 0) == 0; });
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Result {
  std::size_t scans = 0;
  double wall_mb_s = 0;  // 10^6 bytes per second of wall-clock time spent in scan()
  double cpu_mb_s = 0;   // per second of this thread's CPU time (includes the timing overhead)
  double median_us = 0;
  double p99_us = 0;
  double max_us = 0;
  std::size_t findings = 0;  // per scan
};

// Scans `text` repeatedly for `seconds` and times each scan: at least 5 scans
// after one warm-up scan, unless those take more than 10x the budget (a
// superlinear input should not stall the run).
Result measure(const modelgw::pii::Detector& detector, const std::string& text, double seconds) {
  std::vector<modelgw::pii::Finding> out;
  out.reserve(1024);
  detector.scan(text, out);  // warm-up (and the finding count)
  Result r;
  r.findings = out.size();

  std::vector<double> ns;
  Clock::duration total{};
  const double cpu0 = thread_cpu_seconds();
  const auto start = Clock::now();
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (!ns.empty() && elapsed >= seconds && (ns.size() >= 5 || elapsed >= 10 * seconds)) break;
    out.clear();
    const auto t0 = Clock::now();
    detector.scan(text, out);
    const auto dt = Clock::now() - t0;
    total += dt;
    ns.push_back(static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(dt).count()));
  }
  const double cpu = thread_cpu_seconds() - cpu0;

  r.scans = ns.size();
  const double bytes = static_cast<double>(text.size()) * static_cast<double>(r.scans);
  r.wall_mb_s = bytes / std::chrono::duration<double>(total).count() / 1e6;
  r.cpu_mb_s = bytes / cpu / 1e6;
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    const auto i = static_cast<std::size_t>(q * static_cast<double>(ns.size() - 1) + 0.5);
    return ns[std::min(i, ns.size() - 1)] / 1e3;
  };
  r.median_us = at(0.5);
  r.p99_us = at(0.99);
  r.max_us = ns.back() / 1e3;
  return r;
}

std::string size_label(std::size_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  constexpr std::size_t kSizes[] = {1u << 10, 4u << 10, 64u << 10, 1u << 20};

  const auto t0 = Clock::now();
  const modelgw::pii::Detector detector;
  const double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  std::printf(
      "pii_scan_bench: Detector::scan, one thread, >= %.2f s and >= 5 scans per row; detector built in %.1f "
      "ms\n"
      "MB = 10^6 bytes; MB/s over wall time in scan() (CPU-time rate in brackets); latency per scan\n\n",
      opt.seconds, build_ms);
  std::printf("%-17s %8s %9s %11s %12s %12s %12s %7s %8s\n", "workload", "size", "MB/s", "(cpu MB/s)",
              "median us", "p99 us", "max us", "scans", "findings");

  std::map<std::string, std::map<std::size_t, Result>> results;
  for (const auto& w : bench::workloads()) {
    if (!selected(opt, w.name)) continue;
    for (std::size_t size : kSizes) {
      const std::string text = bench::make_text(w.name, size);
      const Result r = measure(detector, text, opt.seconds);
      results[w.name][size] = r;
      char cpu[32];
      std::snprintf(cpu, sizeof cpu, "(%.1f)", r.cpu_mb_s);
      std::printf("%-17s %8s %9.1f %11s %12.1f %12.1f %12.1f %7zu %8zu\n", w.name.c_str(),
                  size_label(size).c_str(), r.wall_mb_s, cpu, r.median_us, r.p99_us, r.max_us, r.scans,
                  r.findings);
      std::fflush(stdout);
    }
  }

  std::printf(
      "\nlinearity: median time(1 MiB) / median time(64 KiB); 16 = linear (cache effects and a noisy "
      "machine\n"
      "add some; over 32 is flagged)\n");
  for (const auto& w : bench::workloads()) {
    const auto it = results.find(w.name);
    if (it == results.end()) continue;
    const double ratio = it->second.at(1u << 20).median_us / it->second.at(64u << 10).median_us;
    std::printf("  %-17s %6.1f%s  %s\n", w.name.c_str(), ratio, ratio > 32 ? "  <-- superlinear" : "",
                w.description.c_str());
  }
  return 0;
}
