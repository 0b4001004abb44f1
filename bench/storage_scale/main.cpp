// storage_scale_bench: modelgw's storage path on PostgreSQL, with two gateway
// instances sharing one database, against SQLite in the same run; see
// README.md. A program, not a test: CTest does not run it.
#include "backend.h"
#include "options.h"
#include "pg_schema.h"
#include "report.h"
#include "scenarios.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace storage_scale {
namespace {

void progress(const Backend& b, const char* what) {
  std::fprintf(stderr, "storage_scale_bench: %s: %s\n", b.name().c_str(), what);
}

// Every phase on one backend, in a fixed order.
BackendResults run_all(Backend& b, const Options& o, std::string detail) {
  BackendResults r;
  r.name = b.name();
  r.detail = std::move(detail);
  progress(b, "usage writes");
  r.usage_one = write_usage(b, 1, o.records, "u1");
  r.usage_two = write_usage(b, 2, o.records, "u2");

  progress(b, "spend and idempotency steps");
  // Warm up: each instance takes its leases and opens its connections.
  (void)spend_step(b, 2, true, 1, 10);
  (void)new_keys(b, 2, 8, 2, "warm");
  r.baseline = spend_step(b, 1, false, o.threads, o.spend_requests);
  r.spend_one = spend_step(b, 1, true, o.threads, o.spend_requests);
  r.spend_two = spend_step(b, 2, true, o.threads, o.spend_requests);
  r.keys_one = new_keys(b, 1, o.threads, o.keyed_requests, "k1");
  r.keys_two = new_keys(b, 2, o.threads, o.keyed_requests, "k2");
  r.replay_two = replays(b, o.threads, o.keyed_requests, "k2");

  progress(b, "throughput");
  r.served_one = served(b, 1, o.threads, o.served_requests, "s1");
  r.served_two = served(b, 2, o.threads, o.served_requests, "s2");
  return r;
}

int run(const Options& o) {
  spdlog::set_level(spdlog::level::warn);  // the store's own lines would drown the table
  const auto dir = std::filesystem::temp_directory_path() / ("storage_scale_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  struct RemoveDir {
    std::filesystem::path dir;
    ~RemoveDir() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } remove_dir{dir};

  std::vector<BackendResults> results;
  if (o.only != "postgres") {
    // Both instances open the same file, as two gateways on one host would.
    const auto db = dir / "bench.db";
    Backend sqlite("sqlite", MODELGW_PLUGIN_DIR, {{"path", db.string()}}, dir / "sqlite");
    results.push_back(run_all(sqlite, o, "a temporary file, both instances on it"));
  }
  if (o.only != "sqlite") {
    PgSchema schema(o.dsn);  // dropped after the backend closed its pools
    Backend pg("postgres", MODELGW_PLUGIN_DIR,
               {{"dsn", o.dsn},
                {"schema", schema.name()},
                {"pool_size", o.pool_size},
                {"application_name", "storage_scale_bench"}},
               dir / "postgres");
    results.push_back(run_all(pg, o,
                              "PostgreSQL " + schema.server_version() + ", schema " + schema.name() +
                                  " (dropped at the end), pool_size " + std::to_string(o.pool_size) +
                                  " per instance"));
  }
  print_table(o, results);
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << to_json(o, results).dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + o.json_path);
  }
  for (const auto& r : results) {
    for (const auto& [name, p] : phases(r)) {
      if (p->errors() != 0) return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace storage_scale

int main(int argc, char** argv) {
  storage_scale::Options options;
  try {
    options = storage_scale::parse_options(argc, argv);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()) != "help") std::fprintf(stderr, "storage_scale_bench: %s\n", e.what());
    std::fputs(storage_scale::kUsage, stderr);
    return std::string(e.what()) == "help" ? 0 : 2;
  }
  // An exception must unwind: the schema is dropped and the files removed.
  try {
    return storage_scale::run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "storage_scale_bench: %s\n", e.what());
    return 1;
  }
}
