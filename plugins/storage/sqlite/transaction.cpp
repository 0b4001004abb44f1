#include "transaction.h"

namespace mgw_sqlite {

WriteTransaction::WriteTransaction(Connection& connection) : connection_(connection) {
  connection_.statement("BEGIN IMMEDIATE").run();
}

WriteTransaction::~WriteTransaction() {
  if (!open_) return;
  try {
    connection_.statement("ROLLBACK").run();
  } catch (...) {
    // Some errors (e.g. SQLITE_FULL) already rolled the transaction back, and
    // then ROLLBACK itself fails; either way no transaction is left open.
  }
}

void WriteTransaction::commit() {
  connection_.statement("COMMIT").run();
  open_ = false;
}

}  // namespace mgw_sqlite
