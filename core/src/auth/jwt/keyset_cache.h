// The identity provider's signing keys, fetched through a KeysetSource and
// kept for their TTL (Cache-Control max-age, bounded; or a default). Keys past
// their TTL are never used (spec 5.2): the next validation fetches them again,
// synchronously, and every validation arriving meanwhile waits for that one
// fetch (single flight) instead of starting its own. Fetches are rate-limited
// so neither forged kids nor a dead provider can make the gateway hammer it.
#pragma once

#include "auth/jwt/jwk.h"
#include "auth/jwt/keyset_source.h"
#include "auth/jwt/options.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

namespace modelgw::auth::jwt {

// The keys cannot be had now; the caller answers 503 jwks_unavailable.
struct KeysetUnavailable {
  std::chrono::seconds retry_after{1};  // when a new fetch may be tried
};

class KeysetCache {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Result = std::variant<std::shared_ptr<const Keyset>, KeysetUnavailable>;

  KeysetCache(
      std::unique_ptr<KeysetSource> source, KeysetCacheOptions options,
      Clock clock = [] { return std::chrono::steady_clock::now(); });
  KeysetCache(const KeysetCache&) = delete;
  KeysetCache& operator=(const KeysetCache&) = delete;

  // Keys within their TTL; when there are none, fetches (or joins the fetch
  // in flight). After a failed fetch, answers unavailable at once until
  // refresh_min_interval has passed.
  Result current();

  // A token named a kid that `seen` (what current() gave) lacks: refetches
  // when no fetch started within refresh_min_interval, else returns the keys
  // as they are (the caller answers 401), or unavailable when that recent
  // fetch failed (the kid may well exist; the provider could not say).
  Result refresh_for_unknown_kid(const std::shared_ptr<const Keyset>& seen);

  // One fetch at start-up; false (and a warning) when it fails. Never throws.
  bool prefetch();

  const KeysetCacheOptions& options() const { return options_; }

 private:
  // Starts a fetch or waits for the one in flight; `lock` holds mutex_.
  Result fetch_shared(std::unique_lock<std::mutex>& lock);
  // Runs the source and parses; called without the lock.
  std::variant<std::shared_ptr<const Keyset>, std::string> fetch_and_parse(std::chrono::milliseconds& ttl);
  bool recently_attempted(std::chrono::steady_clock::time_point now) const;
  KeysetUnavailable unavailable(std::chrono::steady_clock::time_point now) const;
  bool fresh(std::chrono::steady_clock::time_point now) const { return keys_ && now < expires_; }

  std::unique_ptr<KeysetSource> source_;
  KeysetCacheOptions options_;
  Clock clock_;

  std::mutex mutex_;
  std::condition_variable fetched_;
  std::shared_ptr<const Keyset> keys_;  // guarded by mutex_; nullptr before the first good fetch
  std::chrono::steady_clock::time_point expires_;
  std::optional<std::chrono::steady_clock::time_point> last_attempt_;
  bool last_failed_ = false;
  bool fetching_ = false;
  std::uint64_t fetches_done_ = 0;  // waiters watch this change
};

}  // namespace modelgw::auth::jwt
