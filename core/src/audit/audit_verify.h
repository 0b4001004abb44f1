// modelgw audit verify: walks every hash chain of the audit log (or one
// tenant's) as stored, checks each event against its hash and its
// predecessor, and each chain against the newest head the checkpoints
// recorded (so a cut-off tail shows); reports the first fault per chain.
#pragma once

#include "audit/audit_chain.h"
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

// Every chain in tenant order (the gateway's own, 0, first), or only
// `tenant_id`'s. Throws plugins::StorageError when the store fails.
std::vector<ChainReport> verify_chains(plugins::Storage& storage, std::optional<std::int64_t> tenant_id);

}  // namespace modelgw::audit
