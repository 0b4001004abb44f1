// The local journal of audit events the store would not take: an
// append-only file of JSON lines, one event each, every append one write
// followed by fdatasync. The audit writer moves queued events here when
// more than audit.queue_limit wait (instead of dropping the oldest), and
// appends the whole journal, oldest first, ahead of newer events once the
// store answers, then empties it. So the chain keeps the events' order and
// none is lost while the disk takes them.
//
// One process owns a journal (flock), as with the usage journal. Not
// thread-safe: the audit writer (under its write mutex) is its only user.
#pragma once

#include "audit/audit_event.h"
#include "util/line_journal.h"

#include <cstdint>
#include <deque>
#include <string>

namespace modelgw::audit {

class AuditJournal {
 public:
  // Opens (creating the folder and file) and locks `path`; counts the events
  // an earlier run left. Throws std::runtime_error naming the path.
  explicit AuditJournal(std::string path);

  // Appends the events, in order, as one write and syncs it; on failure the
  // file is cut back and `why` says what the system said.
  bool append(const std::deque<Event>& events, std::string& why);
  // Every event in the journal, oldest first, after `out`'s own. A line torn
  // by a crash is skipped.
  bool read_all(std::deque<Event>& out, std::string& why) const;
  // Empties the journal once its events are stored.
  bool clear(std::string& why);

  std::uint64_t events() const { return events_; }
  const std::string& path() const { return file_.path(); }

 private:
  util::LineJournal file_;
  std::uint64_t events_ = 0;
};

}  // namespace modelgw::audit
