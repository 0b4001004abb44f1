// One audit event as the gateway records it; the writer (audit_log.h) adds
// the time, the place in the chain and the hashes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace modelgw::audit {

struct Event {
  std::int64_t tenant_id = 0;  // 0: the gateway's own chain
  std::string actor;           // "key 12 (tenant acme)", "token sub=...", "cli", "gateway"
  std::string action;
  std::string target;
  std::string request_id;
  nlohmann::json details = nlohmann::json::object();  // never a secret or a PII value
};

}  // namespace modelgw::audit
