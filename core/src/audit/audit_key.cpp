#include "audit/audit_key.h"

#include "plugins/storage.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <fstream>

namespace modelgw::audit {
namespace {

// Bound to its purpose: a key reused elsewhere yields no MAC valid here.
constexpr std::string_view kMacDomain = "modelgw audit event v1\n";

}  // namespace

AuditKey AuditKey::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw AuditKeyError("audit key file " + path + ": cannot be read");
  std::string bytes;
  bytes.resize(kMaxBytes + 1);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.size() > kMaxBytes)
    throw AuditKeyError("audit key file " + path + ": longer than " + std::to_string(kMaxBytes) + " bytes");
  while (!bytes.empty() &&
         (bytes.back() == '\n' || bytes.back() == '\r' || bytes.back() == ' ' || bytes.back() == '\t')) {
    bytes.pop_back();
  }
  try {
    return from_bytes(std::move(bytes));
  } catch (const AuditKeyError& e) {
    throw AuditKeyError("audit key file " + path + ": " + e.what());
  }
}

AuditKey AuditKey::from_bytes(std::string secret) {
  // Moved before the length check: GCC 12 warns (-Warray-bounds, a false
  // positive) on a move of a string whose length it knows to be >= 32.
  AuditKey key(std::move(secret));
  if (key.secret_.size() < kMinBytes) {
    throw AuditKeyError("shorter than " + std::to_string(kMinBytes) +
                        " bytes (make one with: openssl rand -hex 32)");
  }
  return key;
}

std::string AuditKey::mac(std::string_view hash) const {
  std::string message(kMacDomain);
  message.append(hash);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), out, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    hex.push_back(kHex[out[i] >> 4]);
    hex.push_back(kHex[out[i] & 0xf]);
  }
  return hex;
}

bool AuditKey::verifies(std::string_view hash, std::string_view mac_hex) const {
  const std::string expected = mac(hash);
  return mac_hex.size() == expected.size() &&
         CRYPTO_memcmp(expected.data(), mac_hex.data(), expected.size()) == 0;
}

std::shared_ptr<const AuditKey> load_configured_key(const std::string& path,
                                                    const plugins::Storage& storage) {
  if (path.empty()) return nullptr;
  auto key = std::make_shared<const AuditKey>(AuditKey::load(path));
  if (storage.supports_audit() && !storage.keeps_audit_mac()) {
    throw AuditKeyError("audit.hmac_key_file is set, but the '" + storage.plugin_name() +
                        "' storage plugin is too old to keep audit MACs (plugin ABI 1.7); install the plugin "
                        "that came with this gateway");
  }
  return key;
}

}  // namespace modelgw::audit
