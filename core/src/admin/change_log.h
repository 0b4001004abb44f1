// The one place every admin change passes through. Today it writes a log line
// (names and ids only: never a key, a token or a template's text); the audit
// log, when it lands, records the same event here.
#pragma once

#include <string>

namespace modelgw::admin {

// Who made a change: "cli" for the shell, or the caller of the internal
// surface ("key 12 (tenant ops)", "token sub=... (tenant ops)").
struct Actor {
  std::string description;
};

// action: e.g. "tenant.create", "key.revoke", "prompt.activate".
// target: what it acted on, e.g. "tenant acme", "key 12", "prompt acme/greet v3".
void record_change(const Actor& actor, const std::string& action, const std::string& target);

}  // namespace modelgw::admin
