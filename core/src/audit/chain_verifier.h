// Walks one audit chain as stored, oldest first, and names the first fault
// (modelgw audit verify). Each kind of tampering has its own name:
//   edited     an event no longer matches its hash: changed in place
//   removed    a gap in the numbering, or events deleted and the later ones
//              renumbered to close it
//   inserted   an event the chain's writer did not put there sits before
//              events that were written earlier
//   reordered  an event matches its hash only at another seq
//   rewritten  the chain is consistent in itself but differs from a head a
//              checkpoint or an anchor recorded: rebuilt with recomputed hashes
//   truncated  the chain ends before a seq a checkpoint or an anchor saw
//   forged     (with the audit key) an event whose MAC is missing or wrong:
//              appended, or rewritten, by someone without the key
//   unkeyed    (with the audit key) no event of the chain carries a MAC
#pragma once

#include "audit/audit_anchors.h"
#include "audit/audit_chain.h"
#include "audit/audit_key.h"
#include "plugins/storage.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace modelgw::audit {

// What is wrong with a chain, at the first event where it shows.
struct ChainFault {
  std::int64_t tenant_id = 0;
  std::int64_t seq = 0;  // the event named
  std::string kind;      // one of the kinds above
  std::string detail;    // for a person: what was found
};

// What a chain must agree with beyond its own events.
struct ChainExpectations {
  std::optional<ChainHead> checkpoint;           // the newest head the store's checkpoints recorded
  const std::vector<Anchor>* anchors = nullptr;  // heads the process log recorded, ascending seq
  const AuditKey* key = nullptr;                 // when set, every event's MAC is checked
};

class ChainVerifier {
 public:
  ChainVerifier(std::int64_t tenant_id, ChainExpectations expect)
      : tenant_id_(tenant_id), expect_(std::move(expect)) {}
  // The fault this event shows, if any (then stop feeding). Events come in
  // ascending seq.
  std::optional<ChainFault> feed(const plugins::AuditRow& event);
  // After the last event: a cut-off tail, an unsigned tail, or a fault that
  // waited for the next event to be named shows here.
  std::optional<ChainFault> finish();
  std::int64_t events() const { return events_; }

  // How far an event may have moved and still be recognised at its old seq.
  static constexpr std::int64_t kMoveWindow = 16;

 private:
  // A fault that the next event names precisely.
  struct Pending {
    ChainFault fault;
    std::int64_t id = 0;     // edited-or-inserted: the event's store id
    std::int64_t shift = 0;  // moved earlier by this much: reordered, or renumbered after a removal
    std::string hash;        // the moved event's own hash
  };

  std::optional<ChainFault> shape(const plugins::AuditRow& e);
  std::optional<ChainFault> moved(const plugins::AuditRow& e, std::int64_t written_as);
  ChainFault resolve(const plugins::AuditRow* next);
  std::optional<ChainFault> against_heads(const plugins::AuditRow& e);
  void check_mac(const plugins::AuditRow& e);
  void accept(const plugins::AuditRow& e);
  const std::string* recent_hash(std::int64_t seq) const;
  std::string at(std::int64_t seq) const;
  ChainFault fault(std::int64_t seq, const char* kind, std::string detail) const;

  std::int64_t tenant_id_;
  ChainExpectations expect_;
  std::size_t next_anchor_ = 0;
  std::int64_t events_ = 0;
  std::int64_t last_seq_ = 0;
  std::int64_t last_id_ = 0;
  std::string last_hash_{kGenesisHash};
  std::deque<std::pair<std::int64_t, std::string>> recent_;  // the last kMoveWindow accepted (seq, hash)
  std::optional<Pending> pending_;
  // With the key: the first event without a valid MAC, whether one with a
  // valid MAC came before, and where the current run without one began.
  std::optional<ChainFault> forged_;
  bool keyed_seen_ = false;
  std::int64_t unkeyed_from_ = 0;
};

}  // namespace modelgw::audit
