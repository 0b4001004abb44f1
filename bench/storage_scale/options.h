// storage_scale_bench's command line (README.md).
#pragma once

#include <cstdint>
#include <string>

namespace storage_scale {

struct Options {
  std::string dsn;        // --dsn, else $MGW_BENCH_PG_DSN
  std::string json_path;  // --json FILE: the figures as JSON too
  bool quick = false;     // --quick: small counts, under 20 s
  std::string only;       // --only sqlite|postgres: that backend alone
  int threads = 64;       // --threads: callers per instance
  int pool_size = 8;      // --pool-size: the postgres plugin's connections per instance
  // Per instance (records) or per caller thread (the rest); --quick lowers them.
  std::int64_t records = 200'000;  // --records: usage records per writer
  int spend_requests = 1000;       // --spend-requests: spend steps per thread
  int keyed_requests = 200;        // --keyed-requests: idempotent requests per thread
  int served_requests = 2000;      // --served-requests: spend step + usage record per thread
};

// Throws std::invalid_argument saying what is wrong; "help" for --help.
Options parse_options(int argc, char** argv);

extern const char* const kUsage;

}  // namespace storage_scale
