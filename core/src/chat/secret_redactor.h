#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace modelgw::chat {

// Last line of defence for provider secrets: every error message a plugin
// hands back passes through here before it reaches a client or a log, with any
// configured secret (and any long fragment of one) replaced by "***".
class SecretRedactor {
 public:
  // Collects string values of keys that name secrets (api_key, token, secret,
  // password, authorization) anywhere in a provider's config block.
  void add_from_config(const nlohmann::json& provider_block);
  void add(std::string secret);

  std::string redact(std::string text) const;

 private:
  std::vector<std::string> secrets_;
};

}  // namespace modelgw::chat
