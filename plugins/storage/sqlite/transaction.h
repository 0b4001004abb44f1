// Write transactions on the writer connection.
#pragma once

#include "connection.h"

namespace mgw_sqlite {

// BEGIN IMMEDIATE ... COMMIT, rolled back when left without commit(). IMMEDIATE
// takes the write lock up front, so a transaction that reads before it writes
// cannot fail half-way with SQLITE_BUSY when another process writes.
class WriteTransaction {
 public:
  explicit WriteTransaction(Connection& connection);
  ~WriteTransaction();
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;

  void commit();

 private:
  Connection& connection_;
  bool open_ = true;
};

}  // namespace mgw_sqlite
