#include "failure.h"

#include <sqlite3.h>

namespace mgw_sqlite {

mgw_status status_from_sqlite(int rc) noexcept {
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return MGW_CONFLICT;
    case SQLITE_CONSTRAINT_FOREIGNKEY:
      return MGW_INVALID_ARGUMENT;
    default:
      break;
  }
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return MGW_UNAVAILABLE;
    default:
      return MGW_INTERNAL;
  }
}

void throw_sqlite(sqlite3* db, int rc, std::string_view context) {
  // sqlite3_errmsg() describes the most recent failure on `db`; without a
  // connection (e.g. open ran out of memory) fall back to the code's text.
  std::string message(context);
  if (!message.empty()) message += ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw Failure(status_from_sqlite(rc), message);
}

}  // namespace mgw_sqlite
