#include "options.h"

#include <cstdlib>
#include <stdexcept>

namespace storage_scale {

const char* const kUsage =
    "usage: storage_scale_bench [--dsn DSN] [--quick] [--json FILE] [--only sqlite|postgres]\n"
    "                           [--threads N] [--pool-size N]\n"
    "                           [--records N] [--spend-requests N] [--keyed-requests N]\n"
    "                           [--served-requests N]\n"
    "The DSN defaults to $MGW_BENCH_PG_DSN; see bench/storage_scale/README.md.\n";

namespace {

std::int64_t positive(const std::string& flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0) throw std::invalid_argument(flag + ": a positive integer");
  return v;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  if (const char* env = std::getenv("MGW_BENCH_PG_DSN")) o.dsn = env;
  // Counts given on the command line win over --quick's, wherever they are.
  bool records = false, spend = false, keyed = false, served = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") throw std::invalid_argument("help");
    if (flag == "--quick") {
      o.quick = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(flag + ": needs a value (or is unknown)");
    const char* value = argv[++i];
    if (flag == "--dsn") {
      o.dsn = value;
    } else if (flag == "--only") {
      o.only = value;
      if (o.only != "sqlite" && o.only != "postgres")
        throw std::invalid_argument("--only: sqlite or postgres");
    } else if (flag == "--json") {
      o.json_path = value;
    } else if (flag == "--threads") {
      o.threads = static_cast<int>(positive(flag, value));
    } else if (flag == "--pool-size") {
      o.pool_size = static_cast<int>(positive(flag, value));
    } else if (flag == "--records") {
      o.records = positive(flag, value);
      records = true;
    } else if (flag == "--spend-requests") {
      o.spend_requests = static_cast<int>(positive(flag, value));
      spend = true;
    } else if (flag == "--keyed-requests") {
      o.keyed_requests = static_cast<int>(positive(flag, value));
      keyed = true;
    } else if (flag == "--served-requests") {
      o.served_requests = static_cast<int>(positive(flag, value));
      served = true;
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  if (o.quick) {
    if (!records) o.records = 5'000;
    if (!spend) o.spend_requests = 100;
    if (!keyed) o.keyed_requests = 10;
    if (!served) o.served_requests = 100;
  }
  if (o.dsn.empty() && o.only != "sqlite") {
    throw std::invalid_argument("no PostgreSQL DSN: pass --dsn or set MGW_BENCH_PG_DSN");
  }
  return o;
}

}  // namespace storage_scale
