#include "harness/postgres_cluster.h"

#include "harness/temp_dir.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace it {
namespace {

// Single-quoted for the shell (the arguments here are ours: paths and SQL).
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs a shell command; its stdout and stderr, and whether it exited 0.
std::pair<bool, std::string> run(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {false, "popen failed"};
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) output += buffer.data();
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) && WEXITSTATUS(status) == 0, output};
}

std::string script() {
  return MGW_PG_CLUSTER_SCRIPT;
}

}  // namespace

PostgresCluster::PostgresCluster() {
  const std::string pattern = make_temp_dir("modelgw-pg");
  dir_ = pattern + "/cluster";
  auto [ok, output] = run(shell_quoted(script()) + " start " + shell_quoted(dir_));
  if (!ok) {
    std::filesystem::remove_all(pattern);
    throw std::runtime_error("cannot start a PostgreSQL cluster: " + output);
  }
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  dsn_ = output.substr(output.rfind('\n') == std::string::npos ? 0 : output.rfind('\n') + 1);
}

PostgresCluster::~PostgresCluster() {
  const std::string parent = std::filesystem::path(dir_).parent_path().string();
  (void)run(shell_quoted(script()) + " stop " + shell_quoted(dir_));
  std::error_code ec;
  std::filesystem::remove_all(parent, ec);
}

std::string PostgresCluster::storage_yaml(const std::string& schema, int pool_size) const {
  return "storage:\n  plugin: postgres\n  options:\n    dsn: \"" + dsn_ + "\"\n    schema: \"" + schema +
         "\"\n    pool_size: " + std::to_string(pool_size) +
         "\n    connect_timeout_ms: 1000\n    acquire_timeout_ms: 2000\n";
}

void PostgresCluster::halt() {
  auto [ok, output] = run(shell_quoted(script()) + " halt " + shell_quoted(dir_));
  if (!ok) throw std::runtime_error("cannot stop the PostgreSQL cluster: " + output);
}

void PostgresCluster::restart() {
  auto [ok, output] = run(shell_quoted(script()) + " restart " + shell_quoted(dir_));
  if (!ok) throw std::runtime_error("cannot restart the PostgreSQL cluster: " + output);
}

std::string PostgresCluster::sql(const std::string& statement) const {
  auto [ok, output] =
      run("psql " + shell_quoted(dsn_) + " -qAt -v ON_ERROR_STOP=1 -c " + shell_quoted(statement));
  if (!ok) throw std::runtime_error("psql failed: " + output);
  while (!output.empty() && output.back() == '\n') output.pop_back();
  return output;
}

}  // namespace it
