// storage.options for the postgres plugin, parsed and checked.
//
//   dsn                  (string, required) a libpq connection string or URI
//   schema               (string, "public") the schema holding every table;
//                        [A-Za-z_][A-Za-z0-9_]{0,62}, created when missing
//   pool_size            (1..256, 8) connections kept open
//   acquire_timeout_ms   (0..3600000, 5000) how long a hook waits for a free
//                        connection before MGW_UNAVAILABLE
//   connect_timeout_ms   (1..3600000, 5000) libpq's connect_timeout, rounded up
//                        to whole seconds (libpq's unit)
//   statement_timeout_ms (0..2147483647, 10000; 0: none) per connection
//   sslmode, sslrootcert, sslcert, sslkey (strings) libpq's keywords of the
//                        same names; they override the DSN's
//   application_name     (string, "modelgw") shown in pg_stat_activity
//   migrate              (bool, true) bring an older schema up to date at open
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mgw_pg {

struct Config {
  std::string dsn;
  std::string schema = "public";
  int pool_size = 8;
  int acquire_timeout_ms = 5000;
  int connect_timeout_ms = 5000;
  int statement_timeout_ms = 10000;
  std::optional<std::string> sslmode, sslrootcert, sslcert, sslkey;
  std::string application_name = "modelgw";
  // Whether connect_timeout_ms and application_name were given: a default
  // never overrides what the DSN itself says.
  bool connect_timeout_given = false;
  bool application_name_given = false;
  // Bring an older schema up to date at open. False: an older database is
  // refused (UNSUPPORTED) until `modelgw migrate` runs.
  bool migrate = true;
};

// Parses the storage.options JSON object. Throws Failure(MGW_INVALID_ARGUMENT)
// naming the offending member, e.g. "storage.options.pool_size: must be an
// integer from 1 to 256". Unknown members are refused too, so a misspelt option
// is not silently ignored. Messages never quote the DSN.
Config parse_config(std::string_view json);

}  // namespace mgw_pg
