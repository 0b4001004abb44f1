// The audit log's writer: every event (admin changes, PII blocks and flags,
// the first budget exhaustion per scope and window, rejected credentials
// counted per source and minute, keyset outages) is queued here without
// blocking and appended by one thread, linked into its tenant's hash chain
// (audit_chain.h). At a fixed interval the newest hash of every chain that
// moved is written as a checkpoint into the gateway's own chain (tenant 0),
// and the same heads with the checkpoint's own place in chain 0 go to the
// process log as an `audit checkpoint` line: an anchor outside the store
// (audit_anchors.h), so a chain whose tail was cut off fails verification
// even when its checkpoints were cut with it. With the audit key
// (audit_key.h) every event carries a MAC, computed on the writer thread.
//
// Several processes may append to one store: each keeps the heads of the
// chains it wrote; an append that finds a link taken (the store answers
// conflict) reads the heads again and links anew.
#pragma once

#include "audit/audit_chain.h"
#include "audit/audit_event.h"
#include "audit/audit_journal.h"
#include "audit/audit_key.h"
#include "plugins/storage.h"
#include "util/periodic_thread.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace modelgw::audit {

struct AuditOptions {
  std::chrono::milliseconds flush_interval{50};
  std::chrono::milliseconds checkpoint_interval{60000};
  // Events held in memory while the store fails; past it they go to the
  // journal (none is dropped), or without one the oldest are dropped (logged).
  std::size_t queue_limit = 100000;
  // Every event gets a MAC of its hash under this key (audit.hmac_key_file).
  std::shared_ptr<const AuditKey> key;
  std::string journal_path;  // audit.journal_path; empty: no journal
};

class AuditLog {
 public:
  using Clock = std::function<std::int64_t()>;  // unix ms
  AuditLog(plugins::Storage& storage, AuditOptions options, Clock now);
  ~AuditLog() { stop(); }
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // The key every event's MAC is made with (nullptr: none), for verifying.
  const AuditKey* key() const { return options_.key.get(); }

  // Queues an event. Never blocks on storage; thread-safe.
  void record(Event event);
  // Queues it and appends what is queued on this thread, so an admin change
  // is in the log, in order, before it is acknowledged. Blocks on storage:
  // never on an event loop. False when the store refused (the event stays
  // queued for the writer).
  bool record_now(Event event);
  // A credential refused with 401 from `source` (the client's address):
  // counted, and written as one event per source and minute (sources past
  // kMaxSourcesPerMinute in one minute are counted together).
  void rejected_credential(const std::string& source);
  // A PII block or flag (pii_events.h): true when it gets an event of its
  // own (the first kPiiEventsPerMinute of a tenant's minute, per action);
  // the rest are counted, with their categories, into one event per tenant,
  // action and minute, so no tenant grows the log faster than that.
  bool pii_event_due(std::int64_t tenant_id, const std::string& action, const nlohmann::json& findings);
  // A request refused because a budget account is exhausted: one event for
  // the first refusal per tenant, account and window (per process).
  void budget_exhausted(std::int64_t tenant_id, const std::string& account, std::int64_t window_start_unix_ms,
                        const std::string& request_id, const std::string& actor);
  // The identity provider's keyset failed (a token got 503) or served again:
  // one event per change of state.
  void keyset_state(bool available, const std::string& request_id);

  // The thread that appends every flush_interval while there are events
  // (woken by the first after a rest) and checkpoints.
  void start();
  // Appends what is queued (and the counts so far), checkpoints, then stops.
  // Idempotent.
  void stop();
  // Appends what is queued now, on this thread (the CLI, tests). False when
  // the store refused; the events stay queued.
  bool flush();

  // For GET /readyz: whether the store takes events, and the counts.
  struct Status {
    bool failing = false;
    std::size_t queued = 0;
    std::int64_t written = 0;
    std::int64_t dropped = 0;
  };
  Status status() const;
  // False while events can be neither stored nor journaled and more than
  // queue_limit wait in memory: chat is refused (503) until one takes them,
  // so no tenant's event is dropped.
  bool recording() const { return !overflowing_.load(std::memory_order_relaxed); }

  static constexpr std::size_t kMaxSourcesPerMinute = 10000;
  static constexpr std::int64_t kPiiEventsPerMinute = 10;

 private:
  bool append_queued(std::unique_lock<std::mutex>& lock, bool all_counts);
  // Under mutex_: true (once) when the writer rests with nothing to do and
  // must be woken (thread_.wake(), after mutex_ is released) for new work.
  bool take_idle();
  // The writer thread's one run: append, and checkpoint when it is time.
  std::chrono::milliseconds write_and_checkpoint();
  void checkpoint();
  // checkpoint() with `lock` (on mutex_) released meanwhile; failures logged.
  void checkpoint_unlocked(std::unique_lock<std::mutex>& lock);
  void take_counts(bool all, std::deque<Event>& out);
  // Under write_mutex_: the newest link of `tenant`'s chain, as this process
  // knows it or else as the store has it.
  ChainHead head_of(std::int64_t tenant);
  // `event` as the row that follows `head` in its chain (linked, with its MAC).
  plugins::AuditRow row_of(const Event& event, std::int64_t now, const ChainHead& head) const;

  plugins::Storage& storage_;
  const AuditOptions options_;
  Clock now_;

  mutable std::mutex mutex_;
  std::deque<Event> queue_;
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> rejected_;  // (source, minute) -> count
  struct PiiCount {
    std::int64_t events = 0;                             // in the minute, those written one by one included
    std::int64_t counted = 0;                            // past kPiiEventsPerMinute: written together
    nlohmann::json findings = nlohmann::json::object();  // category -> count, of the counted
  };
  std::map<std::tuple<std::int64_t, std::string, std::int64_t>, PiiCount> pii_;  // (tenant, action, minute)
  std::map<std::pair<std::int64_t, std::string>, std::int64_t>
      exhausted_;               // (tenant, account) -> last window
  std::atomic<int> keyset_{0};  // 0 unknown, 1 available, -1 failing (read without the lock)
  std::int64_t written_ = 0;
  std::int64_t dropped_ = 0;
  bool idle_ = false;  // the writer rests until woken (write_and_checkpoint)
  bool failing_ = false;
  std::atomic<bool> overflowing_{false};
  std::atomic<bool> journal_holds_{false};  // the journal has events (written under write_mutex_)
  std::unique_ptr<AuditJournal> journal_;   // nullptr: none configured (used under write_mutex_)

  // Writer state (the thread, or flush()'s caller, under write_mutex_).
  std::mutex write_mutex_;
  std::map<std::int64_t, ChainHead> heads_;  // the newest link of each chain this process knows
  std::set<std::int64_t> moved_;             // chains appended to since the last checkpoint
  std::chrono::steady_clock::time_point next_checkpoint_;
  std::chrono::milliseconds backoff_{0};

  util::PeriodicThread thread_;
};

}  // namespace modelgw::audit
