#include "audit/chain_verifier.h"

namespace modelgw::audit {
namespace {

// Of two faults, the one at the lower seq; `a` when they name the same one
// (the structural name says more than "its MAC does not verify").
std::optional<ChainFault> earliest_fault(std::optional<ChainFault> a, std::optional<ChainFault> b) {
  if (!a) return b;
  if (!b) return a;
  return b->seq < a->seq ? b : a;
}

std::string hash_prefix(const std::string& hash) {
  return hash.substr(0, 16);
}

}  // namespace

std::string ChainVerifier::at(std::int64_t seq) const {
  return "tenant " + std::to_string(tenant_id_) + " event seq " + std::to_string(seq);
}

ChainFault ChainVerifier::fault(std::int64_t seq, const char* kind, std::string detail) const {
  return ChainFault{tenant_id_, seq, kind, std::move(detail)};
}

const std::string* ChainVerifier::recent_hash(std::int64_t seq) const {
  static const std::string genesis(kGenesisHash);
  if (seq == 0) return &genesis;
  for (const auto& [s, hash] : recent_) {
    if (s == seq) return &hash;
  }
  return nullptr;
}

std::optional<ChainFault> ChainVerifier::feed(const plugins::AuditRow& e) {
  if (pending_) return earliest_fault(resolve(&e), forged_);
  auto structural = shape(e);
  if (structural) return earliest_fault(std::move(structural), forged_);
  if (pending_) return std::nullopt;  // named by the next event
  if (expect_.key != nullptr) check_mac(e);
  accept(e);
  // Past the window nothing can name an earlier event more precisely.
  if (forged_ && e.seq > forged_->seq + kMoveWindow) return forged_;
  return std::nullopt;
}

// Named only when something is wrong: an intact walk builds no strings.
std::optional<ChainFault> ChainVerifier::shape(const plugins::AuditRow& e) {
  const std::int64_t expected = last_seq_ + 1;
  if (e.seq > expected) {
    return fault(expected, "removed",
                 expected == e.seq - 1
                     ? at(expected) + " is missing"
                     : "tenant " + std::to_string(tenant_id_) + " events seq " + std::to_string(expected) +
                           " to " + std::to_string(e.seq - 1) + " are missing");
  }
  if (event_hash(e) != e.hash) {
    // A moved event still carries the hash it was written with: it matches
    // its content at the seq it had.
    for (std::int64_t d = 1; d <= kMoveWindow; ++d) {
      for (const std::int64_t seq : {e.seq - d, e.seq + d}) {
        if (seq < 1) continue;
        plugins::AuditRow copy = e;
        copy.seq = seq;
        if (event_hash(copy) == e.hash) return moved(e, seq);
      }
    }
    if (e.prev_hash != last_hash_) {
      return fault(e.seq, "inserted",
                   at(e.seq) + " neither matches its hash nor links to the event before it: it was inserted");
    }
    // Edited, unless the next event shows it was stored later (inserted).
    pending_ = Pending{
        fault(e.seq, "edited", at(e.seq) + " does not match its hash: it was changed after it was written"),
        e.id,
        0,
        {}};
    return std::nullopt;
  }
  if (e.prev_hash != last_hash_) {
    // Intact in itself, but not the successor of what precedes it: the
    // event before it does not belong here.
    return fault(last_seq_ > 0 ? last_seq_ : e.seq, "inserted",
                 at(e.seq) + " does not link to the event before it: " +
                     (last_seq_ > 0 ? "event seq " + std::to_string(last_seq_) + " was inserted or replaced"
                                    : std::string("the chain does not start at its first event")));
  }
  if (e.id != 0 && e.id < last_id_) {
    // Linked and hashed consistently, yet stored before its predecessor:
    // the predecessor was added later, by hand.
    return fault(last_seq_, "inserted",
                 at(last_seq_) + " was stored after the event that follows it: it was inserted");
  }
  return against_heads(e);
}

// `e` sits at e.seq but was written as `written_as`.
std::optional<ChainFault> ChainVerifier::moved(const plugins::AuditRow& e, std::int64_t written_as) {
  if (written_as < e.seq) {
    // Pushed back: when what precedes its old place is still its
    // predecessor, the events now between them were put there.
    const std::string* before = recent_hash(written_as - 1);
    if (before != nullptr && *before == e.prev_hash) {
      const std::int64_t count = e.seq - written_as;
      return fault(
          written_as, "inserted",
          (count == 1 ? at(written_as) + " was inserted"
                      : "tenant " + std::to_string(tenant_id_) + " events seq " + std::to_string(written_as) +
                            " to " + std::to_string(e.seq - 1) + " were inserted") +
              ": the event written as seq " + std::to_string(written_as) + " now sits at seq " +
              std::to_string(e.seq));
    }
    return fault(e.seq, "reordered",
                 at(e.seq) + " was written as seq " + std::to_string(written_as) + ": events were moved");
  }
  // Pulled forward: reordered, unless the events after it moved by as much
  // (events were removed and the rest renumbered); the next event tells.
  pending_ =
      Pending{fault(e.seq, "reordered",
                    at(e.seq) + " was written as seq " + std::to_string(written_as) + ": events were moved"),
              0, written_as - e.seq, e.hash};
  return std::nullopt;
}

ChainFault ChainVerifier::resolve(const plugins::AuditRow* next) {
  Pending p = std::move(*pending_);
  pending_.reset();
  if (p.shift > 0) {
    bool renumbered = next == nullptr;  // the last event: nothing else claims its old place
    if (next != nullptr && next->prev_hash == p.hash && event_hash(*next) != next->hash) {
      plugins::AuditRow copy = *next;
      copy.seq = next->seq + p.shift;
      renumbered = event_hash(copy) == next->hash;
    }
    if (renumbered) {
      const std::int64_t first = p.fault.seq;
      return fault(first, "removed",
                   (p.shift == 1 ? "the event written as " + at(first) + " was removed"
                                 : "tenant " + std::to_string(tenant_id_) + " events written as seq " +
                                       std::to_string(first) + " to " + std::to_string(first + p.shift - 1) +
                                       " were removed") +
                       ", and the later events renumbered to close the gap");
    }
    return p.fault;
  }
  // The event before did not match its hash, yet linked to its
  // predecessor. Stored after this one, it was added by hand; else edited.
  if (next != nullptr && next->id != 0 && next->id < p.id) {
    p.fault.kind = "inserted";
    p.fault.detail = at(p.fault.seq) + " was stored after the event that follows it: it was inserted";
  }
  return p.fault;
}

// The chain against the heads recorded outside it: the store's newest
// checkpoint and the process log's anchors.
std::optional<ChainFault> ChainVerifier::against_heads(const plugins::AuditRow& e) {
  if (expect_.checkpoint && e.seq == expect_.checkpoint->seq && e.hash != expect_.checkpoint->hash) {
    return fault(e.seq, "rewritten",
                 at(e.seq) + " is not the event a checkpoint recorded at that place (" +
                     hash_prefix(expect_.checkpoint->hash) + "...): the chain was rewritten up to here");
  }
  if (expect_.anchors == nullptr) return std::nullopt;
  const auto& anchors = *expect_.anchors;
  while (next_anchor_ < anchors.size() && anchors[next_anchor_].seq <= e.seq) {
    const Anchor& a = anchors[next_anchor_++];
    if (a.seq == e.seq && a.hash != e.hash) {
      return fault(e.seq, "rewritten",
                   at(e.seq) + " is not the event the process log anchored at that place (" +
                       hash_prefix(a.hash) + "...): the chain was rewritten up to here");
    }
  }
  return std::nullopt;
}

// A valid MAC vouches for its event and, through the hash chain, for every
// event before it; an event without one is accepted only before the
// chain's first MAC (written before the key was configured).
void ChainVerifier::check_mac(const plugins::AuditRow& e) {
  if (e.mac.empty()) {
    if (unkeyed_from_ == 0) unkeyed_from_ = e.seq;
    return;
  }
  if (!expect_.key->verifies(e.hash, e.mac)) {
    if (!forged_) {
      forged_ = fault(e.seq, "forged",
                      at(e.seq) +
                          "'s MAC does not verify with the audit key: it was written, or rewritten, "
                          "without the key");
    }
    return;
  }
  if (unkeyed_from_ != 0 && keyed_seen_ && !forged_) {
    forged_ = fault(
        unkeyed_from_, "forged",
        at(unkeyed_from_) + " carries no MAC after events that do: it was written without the audit key");
  }
  unkeyed_from_ = 0;
  keyed_seen_ = true;
}

void ChainVerifier::accept(const plugins::AuditRow& e) {
  ++events_;
  last_seq_ = e.seq;
  last_id_ = e.id;
  last_hash_ = e.hash;
  recent_.emplace_back(e.seq, e.hash);
  if (static_cast<std::int64_t>(recent_.size()) > kMoveWindow) recent_.pop_front();
}

std::optional<ChainFault> ChainVerifier::finish() {
  if (pending_) return earliest_fault(resolve(nullptr), forged_);
  std::optional<ChainFault> found = forged_;
  if (expect_.key != nullptr && unkeyed_from_ != 0) {
    found = earliest_fault(
        found, keyed_seen_
                   ? fault(unkeyed_from_, "forged",
                           at(unkeyed_from_) +
                               " carries no MAC after events that do: it was appended without the audit key")
                   : fault(unkeyed_from_, "unkeyed",
                           "no event of tenant " + std::to_string(tenant_id_) +
                               "'s chain carries a MAC: it was written before audit.hmac_key_file was set, "
                               "or by someone without the key"));
  }
  if (found) return found;
  // The furthest seq seen from outside the chain: it must reach it.
  std::int64_t reached = 0;
  std::string by;
  if (expect_.checkpoint && expect_.checkpoint->seq > reached) {
    reached = expect_.checkpoint->seq;
    by = "a checkpoint in the store";
  }
  if (expect_.anchors != nullptr && !expect_.anchors->empty() && expect_.anchors->back().seq > reached) {
    reached = expect_.anchors->back().seq;
    by = "the process log's anchor";
  }
  if (last_seq_ < reached) {
    return fault(last_seq_ + 1, "truncated",
                 "tenant " + std::to_string(tenant_id_) + "'s chain ends at seq " +
                     std::to_string(last_seq_) + " but " + by + " saw it reach seq " +
                     std::to_string(reached) + ": its newest events were cut off");
  }
  return std::nullopt;
}

}  // namespace modelgw::audit
