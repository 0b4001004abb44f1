// CPU time of the gateway's own threads by kind, for
// `modelgw_thread_cpu_seconds_total{thread}` (docs/METRICS.md): which part of
// the gateway spends the process's CPU (the event loops, the usage writer,
// the blocking pool, ...) without a shell on the machine.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::metrics {

// CPU seconds (user + system) of this process's live threads, summed by kind
// (util/thread_name.h): each "mgw-*" kind, "main" for the main thread, and
// "other" for a thread the gateway did not name (the allocator's, a
// plugin's), so the label takes a bounded set of values. Sorted by kind.
// Read from /proc/self/task at scrape time: procfs, no disk I/O; about 40
// small reads.
std::vector<std::pair<std::string, double>> thread_cpu_seconds();

// The label of a thread called `name`; `main` says it is the main thread.
std::string thread_cpu_label(std::string_view name, bool main);

}  // namespace modelgw::metrics
