// The benchmark's results: the summary table on stdout and the JSON file.
#pragma once

#include "load_generator.h"
#include "options.h"
#include "process.h"
#include "sse_holder.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bench {

// One non-streamed pass against one target.
struct PassResult {
  LoadResult load;
  double gateway_cpu_us_per_request = -1;   // modelgw CPU time / requests; -1 when not applicable
  double upstream_cpu_us_per_request = -1;  // fake_upstream CPU time / requests
  // The proxy's CPU time / requests by thread kind (process.h,
  // sample_thread_cpu): "mgw-loop", "mgw-usage", ... Empty when not measured.
  std::map<std::string, double> cpu_by_thread_us;
};

// "mgw-loop 24.1, mgw-usage 9.6, ..." (largest first; under 0.05 left out),
// or "" for a proxy of one kind of thread.
std::string cpu_by_thread_text(const PassResult& p);

// A pass's figures, -1 when it did not run (its p99 also when no request
// was answered), for ratios that must not read a missing side as zero.
double cpu_of(const std::optional<PassResult>& p);
double rps_of(const std::optional<PassResult>& p);
double p99_of(const std::optional<PassResult>& p);

// The same load, directly against the fake upstream and through the gateway.
struct LoadComparison {
  int concurrency = 0;
  PassResult direct;
  PassResult gateway;
  bool complete() const { return direct.load.concurrency > 0 && gateway.load.concurrency > 0; }
  std::int64_t added_p50_us() const { return gateway.load.latency.p50_us - direct.load.latency.p50_us; }
  std::int64_t added_p99_us() const { return gateway.load.latency.p99_us - direct.load.latency.p99_us; }
};

struct StreamPhase {
  StreamResult result;
  int words = 0;
  int chunk_delay_ms = 0;
  long gateway_threads_peak = 0;
  long gateway_rss_peak_kib = 0;
  long upstream_threads_peak = 0;
  TcpCounters tcp;  // increase during the phase (namespace-wide)
};

struct BenchReport {
  Options options;
  std::uint64_t fd_limit = 0;
  std::uint64_t fd_needed = 0;     // what the largest scenario needs per process
  std::vector<std::string> notes;  // scenarios cut to fit the fd limit
  unsigned cpus = 0;
  std::size_t body_bytes = 0;
  std::string pii_mode;              // the gateway's PII mode during the run
  std::vector<LoadComparison> load;  // main pass first, then C=1
  std::optional<StreamPhase> streams;
  std::string shutdown;     // how the two processes ended
  std::string setup_error;  // non-empty when the run was aborted: set-up failure or interrupt

  std::uint64_t total_errors() const;
  bool latency_target_met() const;     // added p50 < 200 us in the C=1 pass
  bool streams_all_completed() const;  // every stream completed, none failed
  bool streams_target_met() const;     // ... and all of them were open at the same time
  int exit_code() const;               // 0 when every stream completed and no request failed
};

void print_report(const BenchReport& report, std::ostream& out);
// Throws std::runtime_error when the file cannot be written. `extra`
// members (e.g. the nginx comparison) are added at the top level.
void write_json(const BenchReport& report, const std::string& path,
                const nlohmann::json& extra = nlohmann::json::object());

}  // namespace bench
