// The audit log's hash chains: each tenant's events are numbered 1, 2, 3...
// and each carries the SHA-256 of its canonical form, which includes the
// previous event's hash. Linking happens once, when an event is appended
// (audit_log.cpp); verifying walks a chain as stored and names the first
// event that was edited, removed, inserted or reordered (modelgw audit verify).
#pragma once

#include "plugins/storage.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::audit {

// The prev_hash of a chain's first event.
inline constexpr std::string_view kGenesisHash =
    "0000000000000000000000000000000000000000000000000000000000000000";

// The bytes an event's hash covers: every field but the store's id and the
// hash itself, as a JSON array (fixed order, no whitespace).
std::string canonical_form(const plugins::AuditRow& event);
std::string event_hash(const plugins::AuditRow& event);

// Gives `event` its place after `head` (the chain's newest event; seq 0 and
// an empty hash for a chain with none): seq, prev_hash and hash.
void link(plugins::AuditRow& event, std::int64_t head_seq, std::string_view head_hash);

// What is wrong with a chain, at the first event where it shows.
struct ChainFault {
  std::int64_t tenant_id = 0;
  std::int64_t seq = 0;  // the event named
  std::string kind;      // "edited", "removed", "inserted", "reordered"
  std::string detail;    // for a person: what was found
};

// The newest event of a chain as a checkpoint saw it.
struct ChainHead {
  std::int64_t seq = 0;
  std::string hash;
};

// Walks one chain in ascending seq, event by event.
class ChainVerifier {
 public:
  // `checkpoint`: the newest head of this chain the checkpoints recorded.
  ChainVerifier(std::int64_t tenant_id, std::optional<ChainHead> checkpoint)
      : tenant_id_(tenant_id), checkpoint_(std::move(checkpoint)) {}
  // The fault this event shows, if any (then stop feeding).
  std::optional<ChainFault> feed(const plugins::AuditRow& event);
  // After the last event: a tail cut off behind a checkpoint shows here.
  std::optional<ChainFault> finish() const;
  std::int64_t events() const { return events_; }

 private:
  std::int64_t tenant_id_;
  std::optional<ChainHead> checkpoint_;
  std::int64_t events_ = 0;
  std::int64_t last_seq_ = 0;
  std::int64_t last_id_ = 0;
  std::string last_hash_{kGenesisHash};
  // An event that failed its hash but linked fine: edited, unless the next
  // event shows it was stored later (inserted).
  std::optional<ChainFault> pending_;
  std::int64_t pending_id_ = 0;
};

}  // namespace modelgw::audit
