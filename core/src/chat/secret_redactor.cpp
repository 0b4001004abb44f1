#include "chat/secret_redactor.h"

#include <algorithm>
#include <cctype>

namespace modelgw::chat {
namespace {

bool names_secret(std::string key) {
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"key", "token", "secret", "password", "authorization"}) {
    if (key.find(word) != std::string::npos) return true;
  }
  return false;
}

// Vendors echo keys partly, so any run of this many characters of a secret is
// redacted too. Long enough that no ordinary word or phrase of a message
// matches by accident; the few characters vendors show ("sk-ab...yz") are
// not enough to use a key.
constexpr std::size_t kFragment = 16;
// Shorter values (placeholders, "none") are not worth scanning for.
constexpr std::size_t kMinSecret = 8;

void collect(const nlohmann::json& node, bool secret_context, SecretRedactor& out) {
  if (node.is_object()) {
    for (const auto& [k, v] : node.items()) collect(v, secret_context || names_secret(k), out);
  } else if (node.is_array()) {
    for (const auto& v : node) collect(v, secret_context, out);
  } else if (node.is_string() && secret_context) {
    out.add(node.get<std::string>());
  }
}

}  // namespace

void SecretRedactor::add_from_config(const nlohmann::json& provider_block) {
  collect(provider_block, false, *this);
}

void SecretRedactor::add(std::string secret) {
  if (secret.size() >= kMinSecret) secrets_.push_back(std::move(secret));
}

std::string SecretRedactor::redact(std::string text) const {
  auto replace_all = [&text](std::string_view piece) {
    for (auto pos = text.find(piece); pos != std::string::npos; pos = text.find(piece, pos + 3)) {
      text.replace(pos, piece.size(), "***");
    }
  };
  for (const auto& secret : secrets_) {
    replace_all(secret);
    if (secret.size() <= kFragment) continue;
    for (std::size_t start = 0; start + kFragment <= secret.size(); ++start) {
      replace_all(std::string_view(secret).substr(start, kFragment));
    }
  }
  return text;
}

}  // namespace modelgw::chat
