// modelgw audit verify: walks every hash chain of the audit log (or one
// tenant's) as stored, checks each event against its hash and its
// predecessor, and each chain against the newest head the store's
// checkpoints recorded, the heads the process log anchored (--anchor) and,
// with the audit key (--key), every event's MAC; reports the first fault per
// chain (chain_verifier.h names the kinds).
#pragma once

#include "audit/audit_anchors.h"
#include "audit/audit_key.h"
#include "audit/chain_verifier.h"
#include "plugins/storage.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace modelgw::audit {

struct ChainReport {
  std::int64_t tenant_id = 0;
  std::int64_t events = 0;  // verified before the fault, or all
  std::optional<ChainFault> fault;
};

struct VerifyOptions {
  std::optional<std::int64_t> tenant_id;  // only this chain (the gateway's own is always walked)
  const AnchorSet* anchors = nullptr;     // heads from the process log
  const AuditKey* key = nullptr;          // check every event's MAC
};

// Every chain in tenant order (the gateway's own, 0, first), or only the
// one asked for. Throws plugins::StorageError when the store fails.
std::vector<ChainReport> verify_chains(plugins::Storage& storage, const VerifyOptions& options);
std::vector<ChainReport> verify_chains(plugins::Storage& storage, std::optional<std::int64_t> tenant_id);

}  // namespace modelgw::audit
