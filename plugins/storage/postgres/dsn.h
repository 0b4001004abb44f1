// The connection string libpq gets, built from storage.options, and the
// masking that keeps its password out of every message and log line.
#pragma once

#include <string>
#include <string_view>

#include "config.h"

namespace mgw_pg {

struct ConnectTarget {
  std::string conninfo;     // keyword='value' pairs for libpq; holds the password, never shown
  std::string password;     // what mask_secrets() hides in texts that may quote it
  std::string description;  // "host=... port=... dbname=... user=...", for log lines
};

// Parses config.dsn (a key=value string or a postgres:// URI) with libpq and
// adds the options' keywords: sslmode, sslrootcert, sslcert, sslkey (they
// override the DSN's), connect_timeout and application_name (only when given
// or when the DSN has none). Throws Failure(MGW_INVALID_ARGUMENT) naming
// storage.options.dsn when libpq cannot parse it; the message never quotes it.
ConnectTarget connect_target(const Config& config);

// `text` with every password it may hold replaced by "****": the known
// `password` wherever it appears (when 3 bytes or longer, so a short one does
// not shred the message), the value of any password=... keyword (quoted or
// not), and the password of a URI's user:password@ part. Applied to every
// text derived from the DSN or from libpq's connection errors.
std::string mask_secrets(std::string_view text, std::string_view password);

// `value` as libpq wants a keyword's value: in single quotes, with \ and '
// escaped by a backslash.
std::string quote_conninfo_value(std::string_view value);

}  // namespace mgw_pg
