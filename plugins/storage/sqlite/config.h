// storage.options for the sqlite plugin, parsed and checked.
#pragma once

#include <string>
#include <string_view>

namespace mgw_sqlite {

struct Config {
  std::string path;            // the database file; parent folders are created on open
  int busy_timeout_ms = 5000;  // how long a locked database is waited for before UNAVAILABLE
  // Bring an older schema up to date at open. False: an older database is
  // refused (UNSUPPORTED) until `modelgw migrate` runs, for operators who
  // migrate as a step of their own.
  bool migrate = true;
};

// Parses the storage.options JSON object. Throws Failure(MGW_INVALID_ARGUMENT)
// naming the offending key, e.g. "storage.options.path: required string".
// Unknown keys are refused too, so a misspelt option is not silently ignored.
Config parse_config(std::string_view json);

}  // namespace mgw_sqlite
