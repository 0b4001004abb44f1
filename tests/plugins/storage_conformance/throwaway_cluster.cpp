#include "throwaway_cluster.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace storage_test {
namespace {

namespace fs = std::filesystem;

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string first_line(const fs::path& path) {
  std::string text = file_text(path);
  if (const auto end = text.find_first_of("\r\n"); end != std::string::npos) text.resize(end);
  return text;
}

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

ThrowAwayCluster::ThrowAwayCluster(std::string environment) : environment_(std::move(environment)) {
  std::string pattern = (fs::temp_directory_path() / "mgw_pg_own_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  parent_ = pattern;
  dir_ = parent_ / "cluster";
  log_ = parent_ / "pg_cluster.log";
  try {
    run("start");
    dsn_ = first_line(dir_ / "dsn");
    port_ = first_line(dir_ / "port");
    if (dsn_.empty()) throw std::runtime_error("pg_cluster start wrote no DSN");
  } catch (...) {
    // No destructor runs for a half-made object: stop what may have started.
    try {
      run("stop");
    } catch (...) {  // the start's failure is the one worth reporting
    }
    std::error_code ec;
    fs::remove_all(parent_, ec);
    throw;
  }
}

ThrowAwayCluster::~ThrowAwayCluster() {
  try {
    run("stop");
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  std::error_code ec;
  fs::remove_all(parent_, ec);
}

// Bounded by coreutils' timeout (pg_ctl itself waits at most 60 s per step).
void ThrowAwayCluster::run(const std::string& command) {
  const std::string line = "timeout 150 env " + environment_ + " " + shell_quote(MGW_PG_CLUSTER_SCRIPT) +
                           " " + command + " " + shell_quote(dir_.string()) + " >>" +
                           shell_quote(log_.string()) + " 2>&1";
  if (std::system(line.c_str()) != 0)
    throw std::runtime_error("pg_cluster " + command + " failed: " + file_text(log_));
}

}  // namespace storage_test
