// The operator's audit key (audit.hmac_key_file): a secret kept outside the
// store. With it the writer gives every event a MAC of its hash, so someone
// who can write to the store but does not hold the key cannot append an
// event that `modelgw audit verify --key` accepts (the hash chain alone is
// public arithmetic: anyone can recompute it). The key's bytes never reach a
// log line, an error or the store.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace modelgw::plugins {
class Storage;
}

namespace modelgw::audit {

// A key file that cannot be used; the message names the file, never its bytes.
class AuditKeyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AuditKey {
 public:
  static constexpr std::size_t kMinBytes = 32;  // 256 bits, HMAC-SHA256's block of security
  static constexpr std::size_t kMaxBytes = 4096;

  // Reads the file's bytes (one trailing line end or whitespace dropped, so
  // `openssl rand -hex 32 > FILE` works). Throws AuditKeyError.
  static AuditKey load(const std::string& path);
  static AuditKey from_bytes(std::string secret);  // tests; throws AuditKeyError when short

  // HMAC-SHA256 of an event's hash, lowercase hex.
  std::string mac(std::string_view hash) const;
  // Whether `mac` is this key's MAC of `hash` (compared in constant time).
  bool verifies(std::string_view hash, std::string_view mac) const;

 private:
  explicit AuditKey(std::string secret) : secret_(std::move(secret)) {}
  std::string secret_;
};

// The key audit.hmac_key_file names, or null when it names none. Throws
// AuditKeyError for an unusable file, or a store whose plugin would drop the
// MACs (built against ABI < 1.7).
std::shared_ptr<const AuditKey> load_configured_key(const std::string& path, const plugins::Storage& storage);

}  // namespace modelgw::audit
