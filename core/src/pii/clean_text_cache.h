// Texts the detector found nothing in, remembered across requests by digest,
// so that a text sent again is not scanned again. Clients resend most of
// what they send: every turn of a conversation carries the earlier turns and
// the same system prompt, and a coding agent the same long context. The
// detector's answer for a text never changes (its patterns are built once),
// so a text found clean once is clean again.
//
// A digest is SHA-256 over the tenant's id and the text: a text matches only
// one byte-identical to it (a collision would need 2^128 work), and one
// tenant's texts are never found by another's, so no tenant can learn from a
// scan's timing what another sent. Only texts with no finding at all are
// kept: what a policy allows is the policy's business, decided on every
// request. The cache holds digests, never text.
//
// Hashing costs about a third of a scan, so a text is not hashed the first
// time it is seen: a hint (the tenant, the length and 48 sampled bytes,
// mixed into 64 bits: nanoseconds) says whether it may have been seen clean
// before. The first time, the text is scanned and its hint noted; the
// second, it is hashed and scanned and its digest kept; from the third on, it
// is hashed only. A hint decides only whether to hash, never whether to
// scan: one that matches by chance costs a hash.
//
// Both are keyed by a random secret of the process, so no one can work out
// offline which slot a text would take, and so probe a slot by timing.
//
// Bounded: fixed tables of kSlots digests and kSlots hints (640 KiB), each
// slot taken by the last entry that hashed to it. THREADING: every call from
// any thread, lock-free; each word is an atomic, so a digest slot two
// threads write at once may hold a mix of two digests, which matches no text.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace modelgw::pii {

class CleanTextCache {
 public:
  using Digest = std::array<std::uint64_t, 4>;
  static constexpr std::size_t kSlots = 16384;  // a power of two
  // A shorter text costs less to scan than to hash.
  static constexpr std::size_t kMinBytes = 128;

  CleanTextCache();
  CleanTextCache(const CleanTextCache&) = delete;
  CleanTextCache& operator=(const CleanTextCache&) = delete;

  Digest digest(std::int64_t tenant_id, std::string_view text) const;
  std::uint64_t hint(std::int64_t tenant_id, std::string_view text) const;

  bool contains(const Digest& digest) const;
  void add(const Digest& digest);
  bool seen(std::uint64_t hint) const;
  void note(std::uint64_t hint);
  // How many lookups found their text (for tests and the operator).
  std::uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }

 private:
  using Slot = std::array<std::atomic<std::uint64_t>, 4>;
  std::array<std::uint64_t, 2> secret_{};  // random, from the constructor
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> hints_;
  mutable std::atomic<std::uint64_t> hits_{0};
};

}  // namespace modelgw::pii
