#include "pii/clean_text_cache.h"

#include "util/sha256_hex.h"

#include <openssl/rand.h>

#include <cstring>
#include <stdexcept>

namespace modelgw::pii {

// Value-initialised: every word 0, an empty slot (no text's digest is all
// zeros, short of a preimage of it).
CleanTextCache::CleanTextCache()
    : slots_(std::make_unique<Slot[]>(kSlots)),
      hints_(std::make_unique<std::atomic<std::uint64_t>[]>(kSlots)) {
  static_assert((kSlots & (kSlots - 1)) == 0, "kSlots must be a power of two");
  // From OpenSSL's CSPRNG, as the gateway's other secrets and ids are.
  if (RAND_bytes(reinterpret_cast<unsigned char*>(secret_.data()), sizeof secret_) != 1) {
    throw std::runtime_error("PII clean-text cache: OpenSSL could not make a random secret");
  }
}

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 32);
}

std::uint64_t word_at(std::string_view text, std::size_t at) {
  std::uint64_t w = 0;
  std::memcpy(&w, text.data() + at, sizeof w);
  return w;
}

}  // namespace

std::uint64_t CleanTextCache::hint(std::int64_t tenant_id, std::string_view text) const {
  std::uint64_t h = mix(mix(secret_[0], secret_[1]), static_cast<std::uint64_t>(tenant_id));
  h = mix(h, text.size());
  if (text.size() < 16) return mix(h, text.empty() ? 0 : static_cast<unsigned char>(text[0]));
  // 16 bytes from each end and from the middle (texts here are kMinBytes
  // or longer; shorter ones are only read within their bounds).
  const std::size_t middle = text.size() / 2 - 8;
  for (const std::size_t at :
       {std::size_t{0}, std::size_t{8}, middle, middle + 8, text.size() - 16, text.size() - 8}) {
    h = mix(h, word_at(text, at));
  }
  return h == 0 ? 1 : h;  // 0 marks an empty slot
}

bool CleanTextCache::seen(std::uint64_t hint) const {
  return hints_[hint & (kSlots - 1)].load(std::memory_order_relaxed) == hint;
}

void CleanTextCache::note(std::uint64_t hint) {
  hints_[hint & (kSlots - 1)].store(hint, std::memory_order_relaxed);
}

CleanTextCache::Digest CleanTextCache::digest(std::int64_t tenant_id, std::string_view text) const {
  char key[sizeof secret_ + sizeof tenant_id];
  std::memcpy(key, secret_.data(), sizeof secret_);
  std::memcpy(key + sizeof secret_, &tenant_id, sizeof tenant_id);
  const auto bytes = util::sha256({std::string_view(key, sizeof key), text});
  Digest out{};
  std::memcpy(out.data(), bytes.data(), sizeof out);
  return out;
}

bool CleanTextCache::contains(const Digest& digest) const {
  const Slot& slot = slots_[digest[0] & (kSlots - 1)];
  for (std::size_t i = 0; i < digest.size(); ++i) {
    if (slot[i].load(std::memory_order_relaxed) != digest[i]) return false;
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void CleanTextCache::add(const Digest& digest) {
  Slot& slot = slots_[digest[0] & (kSlots - 1)];
  for (std::size_t i = 0; i < digest.size(); ++i) slot[i].store(digest[i], std::memory_order_relaxed);
}

}  // namespace modelgw::pii
