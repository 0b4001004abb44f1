#include "auth/principal.h"

namespace modelgw::auth {

bool Principal::has_scope(std::string_view scope) const {
  std::string_view all(scopes);
  while (!all.empty()) {
    auto space = all.find(' ');
    std::string_view one = all.substr(0, space);
    if (one == scope || one == "admin") return true;
    if (space == std::string_view::npos) break;
    all.remove_prefix(space + 1);
  }
  return false;
}

std::string Principal::describe() const {
  if (key_id != 0) return "key " + std::to_string(key_id) + " (tenant " + tenant_name + ")";
  return "token sub=" + (subject.empty() ? std::string("-") : subject) + " (tenant " + tenant_name + ")";
}

}  // namespace modelgw::auth
