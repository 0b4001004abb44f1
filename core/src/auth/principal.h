#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace modelgw::auth {

// Who is calling: the tenant a request is attributed to, and what it may do.
struct Principal {
  std::int64_t tenant_id = 0;
  std::string tenant_name;
  std::int64_t key_id = 0;  // 0 for a JWT
  std::string scopes;       // space-separated
  std::string subject;      // a JWT's `sub` (may be empty); empty for an API key

  bool has_scope(std::string_view scope) const;
  // Who, for people and the audit log: "key 12 (tenant acme)" or
  // "token sub=alice (tenant acme)". Never a credential.
  std::string describe() const;
};

}  // namespace modelgw::auth
