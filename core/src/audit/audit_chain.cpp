#include "audit/audit_chain.h"

#include "util/sha256_hex.h"

#include <nlohmann/json.hpp>

namespace modelgw::audit {

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

}  // namespace modelgw::audit
