// The local journal of usage records that could not reach storage: an
// append-only file of journal lines (journal_line.h), each append one write
// followed by fdatasync, so what append() accepted survives a crash of the
// process (and of the machine). The writer replays it into storage when the
// store answers again and then empties it; storage skips a request_id it
// already holds, so a replay cut short by a crash is simply run again.
//
// One process owns a journal: the file is locked (flock) while open, and a
// second process configured with the same path stops at start-up.
// Not thread-safe: the usage writer's thread is its only user.
#pragma once

#include "plugins/storage.h"
#include "util/line_journal.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace modelgw::usage {

class UsageJournal {
 public:
  // Opens (creating the parent folder and the file) and locks `path`; counts
  // the records an earlier run left. Throws std::runtime_error naming the path
  // when it cannot.
  explicit UsageJournal(std::string path);

  // Writes the rows as one append and syncs it. On failure (disk full, I/O
  // error) the file is cut back to where it was, `why` says what the system
  // said, and false is returned: nothing of the batch is in the journal.
  bool append(const std::vector<plugins::UsageRow>& rows, std::string& why);

  // Hands the journal's records to `store` in batches of at most `batch`,
  // oldest first, and empties the file once every batch was stored. Stops at
  // the first batch `store` refuses (returns false, or throws) and keeps the
  // file whole, so the next replay starts over. Lines that do not parse (a
  // write torn by a crash) are skipped and counted in `skipped`.
  bool replay(std::size_t batch, const std::function<bool(const std::vector<plugins::UsageRow>&)>& store,
              std::uint64_t& replayed, std::uint64_t& skipped, std::string& why);

  std::uint64_t records() const { return records_; }
  std::uint64_t bytes() const { return file_.bytes(); }
  const std::string& path() const { return file_.path(); }

 private:
  util::LineJournal file_;
  std::uint64_t records_ = 0;
};

}  // namespace modelgw::usage
