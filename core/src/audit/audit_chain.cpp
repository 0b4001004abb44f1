#include "audit/audit_chain.h"

#include "util/sha256_hex.h"

#include <nlohmann/json.hpp>

namespace modelgw::audit {
namespace {

// A reordered event still carries the hash it was written with: it matches
// its content at the seq it had. Moves further than this are reported as edits.
constexpr std::int64_t kReorderWindow = 16;

ChainFault fault(std::int64_t tenant, std::int64_t seq, const char* kind, std::string detail) {
  return ChainFault{tenant, seq, kind, std::move(detail)};
}

}  // namespace

std::string canonical_form(const plugins::AuditRow& e) {
  const nlohmann::json form = {e.tenant_id, e.seq,        e.created_unix_ms, e.actor,    e.action,
                               e.target,    e.request_id, e.details_json,    e.prev_hash};
  return form.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string event_hash(const plugins::AuditRow& e) {
  return util::sha256_hex(canonical_form(e));
}

void link(plugins::AuditRow& event, std::int64_t head_seq, std::string_view head_hash) {
  event.seq = head_seq + 1;
  event.prev_hash = head_seq == 0 ? std::string(kGenesisHash) : std::string(head_hash);
  event.hash = event_hash(event);
}

std::optional<ChainFault> ChainVerifier::feed(const plugins::AuditRow& e) {
  if (pending_) {
    // The event before did not match its hash, yet linked to its
    // predecessor. Stored after this one, it was added by hand; else edited.
    if (e.id != 0 && e.id < pending_id_) {
      pending_->kind = "inserted";
      pending_->detail = "tenant " + std::to_string(tenant_id_) + " event seq " +
                         std::to_string(pending_->seq) +
                         " was stored after the event that follows it: it was inserted";
    }
    return pending_;
  }
  const std::int64_t expected = last_seq_ + 1;
  // Named only when something is wrong: an intact walk builds no strings.
  const auto at = [&] {
    return "tenant " + std::to_string(tenant_id_) + " event seq " + std::to_string(e.seq);
  };
  if (e.seq > expected) {
    return fault(tenant_id_, expected, "removed",
                 expected == e.seq - 1
                     ? "event seq " + std::to_string(expected) + " of tenant " + std::to_string(tenant_id_) +
                           " is missing"
                     : "events seq " + std::to_string(expected) + " to " + std::to_string(e.seq - 1) +
                           " of tenant " + std::to_string(tenant_id_) + " are missing");
  }
  if (event_hash(e) != e.hash) {
    for (std::int64_t d = 1; d <= kReorderWindow; ++d) {
      for (const std::int64_t seq : {e.seq - d, e.seq + d}) {
        if (seq < 1) continue;
        plugins::AuditRow moved = e;
        moved.seq = seq;
        if (event_hash(moved) == e.hash) {
          return fault(tenant_id_, e.seq, "reordered",
                       at() + " was written as seq " + std::to_string(seq) + ": events were moved");
        }
      }
    }
    if (e.prev_hash != last_hash_) {
      return fault(tenant_id_, e.seq, "inserted",
                   at() + " neither matches its hash nor links to the event before it: it was inserted");
    }
    pending_ = fault(tenant_id_, e.seq, "edited",
                     at() + " does not match its hash: it was changed after it was written");
    pending_id_ = e.id;
    return std::nullopt;
  }
  if (e.prev_hash != last_hash_) {
    // Intact in itself, but not the successor of what precedes it: the
    // event before it does not belong here.
    return fault(tenant_id_, last_seq_ > 0 ? last_seq_ : e.seq, "inserted",
                 at() + " does not link to the event before it: " +
                     (last_seq_ > 0 ? "event seq " + std::to_string(last_seq_) + " was inserted or replaced"
                                    : std::string("the chain does not start at its first event")));
  }
  if (e.id != 0 && e.id < last_id_) {
    // Linked and hashed consistently, yet stored before its predecessor:
    // the predecessor was added later, by hand.
    return fault(tenant_id_, last_seq_, "inserted",
                 "tenant " + std::to_string(tenant_id_) + " event seq " + std::to_string(last_seq_) +
                     " was stored after the event that follows it: it was inserted");
  }
  if (checkpoint_ && e.seq == checkpoint_->seq && e.hash != checkpoint_->hash) {
    return fault(tenant_id_, e.seq, "edited",
                 at() + " is not the event a checkpoint recorded at that place: the chain was rewritten");
  }
  ++events_;
  last_seq_ = e.seq;
  last_id_ = e.id;
  last_hash_ = e.hash;
  return std::nullopt;
}

std::optional<ChainFault> ChainVerifier::finish() const {
  if (pending_) return pending_;
  if (checkpoint_ && last_seq_ < checkpoint_->seq) {
    return fault(tenant_id_, last_seq_ + 1, "removed",
                 "tenant " + std::to_string(tenant_id_) + "'s chain ends at seq " +
                     std::to_string(last_seq_) + " but a checkpoint saw it reach seq " +
                     std::to_string(checkpoint_->seq) + ": its newest events were cut off");
  }
  return std::nullopt;
}

}  // namespace modelgw::audit
