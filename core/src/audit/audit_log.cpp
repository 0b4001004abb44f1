#include "audit/audit_log.h"

#include "logging/log_line.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

namespace modelgw::audit {
namespace {

constexpr int kMaxRelinks = 5;  // conflicts with other processes in a row before the batch waits
constexpr std::int64_t kMinuteMs = 60'000;

std::string utc_minute(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%MZ", &tm);
  return buffer;
}

// The process log's copy of a checkpoint: chain 0's head (the checkpoint
// itself) and the heads it recorded, as the `audit_checkpoint` field that
// audit_anchors.cpp reads back. Long lists are split so every line stays
// far below the reader's line bound.
void log_anchor(const plugins::AuditRow& checkpoint, const nlohmann::json& heads) {
  constexpr std::size_t kHeadsPerLine = 1000;
  spdlog::logger* logger = spdlog::default_logger_raw();
  if (!logger->should_log(spdlog::level::info)) return;
  nlohmann::json line = nlohmann::json::array({{0, checkpoint.seq, checkpoint.hash}});
  for (const auto& head : heads) {
    if (line.size() == kHeadsPerLine) {
      const auto payload = logging::with_fields({{"audit_checkpoint", std::move(line)}}, "audit checkpoint");
      logger->log(spdlog::level::info, spdlog::string_view_t(payload));
      line = nlohmann::json::array();
    }
    line.push_back(head);
  }
  const auto payload = logging::with_fields({{"audit_checkpoint", std::move(line)}}, "audit checkpoint");
  logger->log(spdlog::level::info, spdlog::string_view_t(payload));
}

}  // namespace

AuditLog::AuditLog(plugins::Storage& storage, AuditOptions options, Clock now)
    : storage_(storage), options_(options), now_(std::move(now)) {
  if (!options_.journal_path.empty()) {
    journal_ = std::make_unique<AuditJournal>(options_.journal_path);
    journal_holds_.store(journal_->events() > 0);
    if (journal_->events() > 0) {
      spdlog::warn("audit: {} events an earlier run journaled are appended once the store takes them",
                   journal_->events());
    }
  }
}

void AuditLog::record(Event event) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    // With a journal the writer moves what is over the limit there; never dropped.
    if (!journal_ && queue_.size() >= options_.queue_limit) {
      queue_.pop_front();
      if (dropped_++ % 1000 == 0) {
        spdlog::error("audit: {} events wait for the store (audit queue limit); the oldest are dropped",
                      queue_.size());
      }
    }
    queue_.push_back(std::move(event));
    wake = take_idle();
  }
  if (wake) thread_.wake();
}

bool AuditLog::take_idle() {
  const bool was = idle_;
  idle_ = false;
  return was;
}

bool AuditLog::record_now(Event event) {
  record(std::move(event));
  return flush();
}

void AuditLog::rejected_credential(const std::string& source) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    const std::int64_t minute = now_() / kMinuteMs;
    auto counted = rejected_.find({source, minute});
    if (counted != rejected_.end()) {
      ++counted->second;
      return;
    }
    // A flood from many addresses cannot grow the map past a bound: the rest
    // of the minute's sources are counted under one name.
    const bool full = rejected_.size() >= kMaxSourcesPerMinute;
    ++rejected_[{full ? std::string("(other sources)") : source, minute}];
    wake = take_idle();  // its minute's end is now due
  }
  if (wake) thread_.wake();
}

bool AuditLog::pii_event_due(std::int64_t tenant_id, const std::string& action,
                             const nlohmann::json& findings) {
  bool due = true;
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    PiiCount& c = pii_[{tenant_id, action, now_() / kMinuteMs}];
    wake = take_idle();  // the count's minute's end is now due
    if (++c.events > kPiiEventsPerMinute) {
      due = false;
      ++c.counted;
      if (findings.is_object()) {
        for (const auto& [category, n] : findings.items()) {
          if (!n.is_number_integer()) continue;
          auto& sum = c.findings[category];
          sum = (sum.is_number_integer() ? sum.get<std::int64_t>() : 0) + n.get<std::int64_t>();
        }
      }
    }
  }
  if (wake) thread_.wake();
  return due;
}

void AuditLog::budget_exhausted(std::int64_t tenant_id, const std::string& account,
                                std::int64_t window_start_unix_ms, const std::string& request_id,
                                const std::string& actor) {
  {
    std::lock_guard lock(mutex_);
    // One entry per account (its latest window), so the map stays as small
    // as the tenants' budgets however long the process runs.
    auto [seen, fresh] = exhausted_.try_emplace({tenant_id, account}, window_start_unix_ms);
    if (!fresh && seen->second >= window_start_unix_ms) return;
    seen->second = window_start_unix_ms;
  }
  record(Event{tenant_id, actor, "budget.exhausted", account, request_id,
               nlohmann::json{{"window_start_unix_ms", window_start_unix_ms}}});
}

void AuditLog::keyset_state(bool available, const std::string& request_id) {
  const int state = available ? 1 : -1;
  if (keyset_.load(std::memory_order_relaxed) == state) return;  // every verified token passes here
  {
    std::lock_guard lock(mutex_);
    const int was = keyset_.exchange(state);
    // An outage is news; the first success of a run is not.
    if (was == state || (was == 0 && available)) return;
  }
  record(Event{0, "gateway", available ? "keyset.recovered" : "keyset.unavailable",
               "identity provider keyset", request_id, nlohmann::json::object()});
}

void AuditLog::take_counts(bool all, std::deque<Event>& out) {
  const std::int64_t minute = now_() / kMinuteMs;
  for (auto it = rejected_.begin(); it != rejected_.end();) {
    if (!all && it->first.second >= minute) {
      ++it;
      continue;
    }
    out.push_back(
        Event{0, "anonymous", "auth.rejected", "source " + it->first.first, "",
              nlohmann::json{{"count", it->second}, {"minute", utc_minute(it->first.second * kMinuteMs)}}});
    it = rejected_.erase(it);
  }
  for (auto it = pii_.begin(); it != pii_.end();) {
    const auto& [tenant, action, at] = it->first;
    if (!all && at >= minute) {
      ++it;
      continue;
    }
    if (it->second.counted > 0) {
      out.push_back(Event{tenant, "gateway", action, "requests in " + utc_minute(at * kMinuteMs), "",
                          nlohmann::json{{"count", it->second.counted},
                                         {"minute", utc_minute(at * kMinuteMs)},
                                         {"findings", std::move(it->second.findings)},
                                         {"aggregated", true}}});
    }
    it = pii_.erase(it);
  }
}

ChainHead AuditLog::head_of(std::int64_t tenant) {
  if (auto known = heads_.find(tenant); known != heads_.end()) return known->second;
  plugins::AuditFilter f;
  f.tenant_id = tenant;
  f.limit = 1;
  auto newest = storage_.audit_page(f);
  if (newest.empty()) return ChainHead{};
  return ChainHead{newest.front().seq, std::move(newest.front().hash)};
}

plugins::AuditRow AuditLog::row_of(const Event& e, std::int64_t now, const ChainHead& head) const {
  plugins::AuditRow row;
  row.tenant_id = e.tenant_id;
  row.created_unix_ms = now;
  row.actor = e.actor;
  row.action = e.action;
  row.target = e.target;
  row.request_id = e.request_id;
  row.details_json = e.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  link(row, head.seq, head.hash);
  if (options_.key) row.mac = options_.key->mac(row.hash);
  return row;
}

bool AuditLog::append_queued(std::unique_lock<std::mutex>& lock, bool all_counts) {
  take_counts(all_counts, queue_);
  if (queue_.empty() && !journal_holds_.load(std::memory_order_relaxed)) return true;
  std::deque<Event> batch;
  batch.swap(queue_);
  lock.unlock();

  std::lock_guard writing(write_mutex_);
  // What the journal holds is older than anything queued: it goes first.
  std::size_t from_journal = 0;
  if (journal_ && journal_->events() > 0) {
    std::deque<Event> older;
    std::string why;
    if (journal_->read_all(older, why)) {
      from_journal = older.size();
      for (auto& e : batch) older.push_back(std::move(e));
      batch.swap(older);
    } else {
      spdlog::error("audit: reading the journal {} failed: {}", journal_->path(), why);
    }
  }
  if (batch.empty()) return true;
  const std::int64_t now = now_();
  bool stored = false;
  std::string failure;
  for (int attempt = 0; attempt < kMaxRelinks && !stored; ++attempt) {
    try {
      // Link each event after its chain's newest (read once per chain).
      std::map<std::int64_t, ChainHead> heads;
      std::vector<plugins::AuditRow> rows;
      rows.reserve(batch.size());
      for (const Event& e : batch) {
        auto head = heads.find(e.tenant_id);
        if (head == heads.end()) head = heads.emplace(e.tenant_id, head_of(e.tenant_id)).first;
        rows.push_back(row_of(e, now, head->second));
        head->second = ChainHead{rows.back().seq, rows.back().hash};
      }
      if (storage_.append_audit(rows)) {
        for (auto& [tenant, head] : heads) {
          heads_[tenant] = std::move(head);
          moved_.insert(tenant);
        }
        stored = true;
      } else {
        // Another process appended to one of these chains: read them again.
        for (const auto& [tenant, head] : heads) heads_.erase(tenant);
      }
    } catch (const std::exception& e) {
      failure = e.what();
      heads_.clear();
      break;
    }
  }

  if (stored && from_journal > 0) {
    std::string why;
    // A crash before this clear appends these events again at the next start.
    if (!journal_->clear(why))
      spdlog::error("audit: emptying the journal {} failed: {}", journal_->path(), why);
    journal_holds_.store(journal_->events() > 0, std::memory_order_relaxed);
  }
  lock.lock();
  if (stored) {
    written_ += static_cast<std::int64_t>(batch.size());
    if (failing_) spdlog::info("audit: the store takes audit events again");
    failing_ = false;
    overflowing_.store(false, std::memory_order_relaxed);
    return true;
  }
  // Not stored: what came from the journal stays there; the rest goes back
  // in front of the queue, in order, for the next try.
  batch.erase(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(from_journal));
  for (auto it = batch.rbegin(); it != batch.rend(); ++it) queue_.push_front(std::move(*it));
  if (journal_ && queue_.size() > options_.queue_limit) {
    // Over the limit: the queue moves to the journal, after what it holds.
    // The disk write runs without the queue's lock, so record() on an event
    // loop never waits on it.
    std::deque<Event> moving;
    moving.swap(queue_);
    lock.unlock();
    std::string why;
    const bool journaled = journal_->append(moving, why);
    lock.lock();
    if (journaled) {
      spdlog::warn("audit: {} events wait for the store; moved to the journal {}", moving.size(),
                   journal_->path());
      journal_holds_.store(true, std::memory_order_relaxed);
      overflowing_.store(false, std::memory_order_relaxed);
    } else {
      // Back in front of what was recorded meanwhile, in order.
      for (auto it = moving.rbegin(); it != moving.rend(); ++it) queue_.push_front(std::move(*it));
      // Neither store nor journal: kept in memory, and chat waits (recording()).
      if (!overflowing_.exchange(true)) {
        spdlog::error(
            "audit: neither the store nor the journal {} takes events ({}); chat is refused until "
            "one does",
            journal_->path(), why);
      }
    }
  }
  while (!journal_ && queue_.size() > options_.queue_limit) {
    queue_.pop_front();
    ++dropped_;
  }
  if (!failing_) {
    spdlog::error("audit: the store refused audit events ({}); they are kept in memory and retried",
                  failure.empty() ? "other processes kept appending first" : failure);
  }
  failing_ = true;
  return false;
}

void AuditLog::checkpoint() {
  std::lock_guard writing(write_mutex_);
  // The gateway's own chain holds the checkpoints: its events are anchored
  // by the checkpoint's place after them, not listed in it.
  const bool own_moved = moved_.erase(0) > 0;
  if (moved_.empty() && !own_moved) return;
  // The heads as the store has them (other processes' appends included).
  nlohmann::json heads = nlohmann::json::array();
  // Only the chains this process appended to: each process anchors its own
  // writes, and a checkpoint stays as small as one interval's activity.
  for (const auto& h : storage_.audit_heads()) {
    if (moved_.count(h.tenant_id)) heads.push_back({h.tenant_id, h.seq, h.hash});
  }
  moved_.clear();
  if (heads.empty() && !own_moved) return;
  // Appended here rather than queued: its own place in chain 0 is part of
  // the anchor, so a chain 0 cut back behind it shows too.
  const Event event{0, "gateway", "audit.checkpoint", "chain heads", "", nlohmann::json{{"heads", heads}}};
  for (int attempt = 0; attempt < kMaxRelinks; ++attempt) {
    const plugins::AuditRow row = row_of(event, now_(), head_of(0));
    bool stored = false;
    try {
      stored = storage_.append_audit({row});
    } catch (...) {
      heads_.erase(0);  // whether it was stored is unknown: read the head again next time
      throw;
    }
    if (!stored) {
      heads_.erase(0);  // another process appended to chain 0 first: read its head again
      continue;
    }
    heads_[0] = ChainHead{row.seq, row.hash};
    {
      std::lock_guard lock(mutex_);
      ++written_;
    }
    log_anchor(row, heads);
    return;
  }
  spdlog::warn("audit: checkpoint not stored: other processes kept appending to the gateway's chain first");
}

void AuditLog::checkpoint_unlocked(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  try {
    checkpoint();
  } catch (const std::exception& e) {
    spdlog::warn("audit: checkpoint failed: {}", e.what());
  }
  lock.lock();
}

std::chrono::milliseconds AuditLog::write_and_checkpoint() {
  std::unique_lock lock(mutex_);
  const bool quiet = queue_.empty();  // the interval brought no event
  const bool ok = append_queued(lock, false);
  // While the store refuses, retry with backoff: 2x per failure, up to 5 s.
  backoff_ = ok ? options_.flush_interval : std::min(backoff_ * 2, std::chrono::milliseconds(5000));
  if (ok && std::chrono::steady_clock::now() >= next_checkpoint_) {
    next_checkpoint_ = std::chrono::steady_clock::now() + options_.checkpoint_interval;
    checkpoint_unlocked(lock);
  }
  // An interval with no event, and nothing queued, counted or journaled:
  // rest until the next checkpoint, or until something is queued or counted
  // (take_idle wakes the thread), instead of waking every flush_interval for
  // nothing.
  if (ok && quiet && queue_.empty() && rejected_.empty() && pii_.empty() && !journal_holds_.load()) {
    idle_ = true;
    const auto rest = std::chrono::duration_cast<std::chrono::milliseconds>(next_checkpoint_ -
                                                                            std::chrono::steady_clock::now());
    return std::max(rest, std::chrono::milliseconds(1));
  }
  return backoff_;
}

void AuditLog::start() {
  next_checkpoint_ = std::chrono::steady_clock::now() + options_.checkpoint_interval;
  backoff_ = options_.flush_interval;
  thread_.start("mgw-audit", options_.flush_interval, [this] { return write_and_checkpoint(); });
}

bool AuditLog::flush() {
  std::unique_lock lock(mutex_);
  return append_queued(lock, false);
}

void AuditLog::stop() {
  if (!thread_.stop()) return;
  std::unique_lock lock(mutex_);
  // A clean stop anchors the heads it wrote, then stores the checkpoint.
  if (append_queued(lock, true)) checkpoint_unlocked(lock);
  if (!append_queued(lock, true) && !queue_.empty()) {
    // The store refuses: what is left waits in the journal for the next start.
    if (journal_) {
      std::deque<Event> moving;
      moving.swap(queue_);
      lock.unlock();  // the disk write runs without the queue's lock
      std::lock_guard writing(write_mutex_);
      std::string why;
      const bool journaled = journal_->append(moving, why);
      lock.lock();
      if (journaled) {
        spdlog::warn("audit: {} events wait in the journal {} for the store", moving.size(),
                     journal_->path());
        return;
      }
      spdlog::error("audit: the journal {} refused {} events: {}", journal_->path(), moving.size(), why);
      for (auto it = moving.rbegin(); it != moving.rend(); ++it) queue_.push_front(std::move(*it));
    }
    spdlog::error("audit: {} events could not be stored before exit", queue_.size());
  }
}

AuditLog::Status AuditLog::status() const {
  std::lock_guard lock(mutex_);
  return Status{failing_, queue_.size(), written_, dropped_};
}

}  // namespace modelgw::audit
