// The run's figures: a table on stdout and, with --json, the same as JSON.
#pragma once

#include "options.h"
#include "scenarios.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace storage_scale {

struct BackendResults {
  std::string name;    // "sqlite", "postgres"
  std::string detail;  // where it ran
  Phase usage_one, usage_two;
  Phase baseline, spend_one, spend_two;
  Phase keys_one, keys_two, replay_two;
  Phase served_one, served_two;
};

// Every phase of a backend with its JSON name.
std::vector<std::pair<const char*, const Phase*>> phases(const BackendResults& r);

// Prints the table; the last backend is compared with the first ("x").
void print_table(const Options& options, const std::vector<BackendResults>& results);
nlohmann::json to_json(const Options& options, const std::vector<BackendResults>& results);

}  // namespace storage_scale
