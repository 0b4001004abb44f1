// The audit log's hash chains: each tenant's events are numbered 1, 2, 3...
// and each carries the SHA-256 of its canonical form, which includes the
// previous event's hash. Linking happens once, when an event is appended
// (audit_log.cpp); verifying walks a chain as stored (chain_verifier.h).
#pragma once

#include "plugins/storage.h"

#include <cstdint>
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

// The newest event of a chain as a checkpoint saw it.
struct ChainHead {
  std::int64_t seq = 0;
  std::string hash;
};

}  // namespace modelgw::audit
