#include "auth/jwt/keyset_cache.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace modelgw::auth::jwt {

KeysetCache::KeysetCache(std::unique_ptr<KeysetSource> source, KeysetCacheOptions options, Clock clock)
    : source_(std::move(source)), options_(std::move(options)), clock_(std::move(clock)) {}

KeysetCache::Result KeysetCache::current() {
  std::unique_lock lock(mutex_);
  const auto now = clock_();
  if (fresh(now)) return keys_;
  // No request waits on a dead provider more than once per interval.
  if (!fetching_ && last_failed_ && recently_attempted(now)) return unavailable(now);
  return fetch_shared(lock);
}

KeysetCache::Result KeysetCache::refresh_for_unknown_kid(const std::shared_ptr<const Keyset>& seen) {
  std::unique_lock lock(mutex_);
  const auto now = clock_();
  if (fetching_) return fetch_shared(lock);
  if (keys_ != seen && fresh(now)) return keys_;  // refreshed since the caller looked
  if (recently_attempted(now)) {
    if (last_failed_) return unavailable(now);
    if (fresh(now)) return keys_;
  }
  return fetch_shared(lock);
}

bool KeysetCache::prefetch() {
  bool ok = false;
  try {
    ok = std::holds_alternative<std::shared_ptr<const Keyset>>(current());
  } catch (const std::exception& e) {
    spdlog::warn("could not fetch the JWT signing keys from {}: {}", options_.source_host, e.what());
  }
  if (!ok) {
    spdlog::warn(
        "starting anyway: JWT bearer tokens get 503 jwks_unavailable until the keyset can be fetched");
  }
  return ok;
}

KeysetCache::Result KeysetCache::fetch_shared(std::unique_lock<std::mutex>& lock) {
  if (fetching_) {
    const std::uint64_t ticket = fetches_done_;
    if (!fetched_.wait_for(lock, options_.max_wait, [&] { return fetches_done_ != ticket; })) {
      return unavailable(clock_());
    }
    // The fetch we waited for began after this request arrived, so its keys
    // serve it even when their TTL is zero.
    if (last_failed_ || !keys_) return unavailable(clock_());
    return keys_;
  }
  fetching_ = true;
  last_attempt_ = clock_();
  lock.unlock();

  std::chrono::milliseconds ttl{0};
  auto outcome = fetch_and_parse(ttl);

  lock.lock();
  fetching_ = false;
  ++fetches_done_;
  const bool was_failing = last_failed_;
  if (auto* keys = std::get_if<std::shared_ptr<const Keyset>>(&outcome)) {
    keys_ = *keys;
    expires_ = clock_() + ttl;
    last_failed_ = false;
    if (was_failing) {
      spdlog::info("JWT signing keys fetched again from {} ({} keys)", options_.source_host,
                   keys_->keys.size());
    }
  } else {
    last_failed_ = true;
    // Unexpired keys stay: a failed refresh for one unknown kid must not
    // break tokens signed with the keys already known.
    spdlog::warn("could not fetch the JWT signing keys from {}: {}", options_.source_host,
                 std::get<std::string>(outcome));
  }
  fetched_.notify_all();
  if (last_failed_) return unavailable(clock_());
  return keys_;
}

std::variant<std::shared_ptr<const Keyset>, std::string> KeysetCache::fetch_and_parse(
    std::chrono::milliseconds& ttl) {
  try {
    auto fetched = source_->fetch();
    if (auto* failure = std::get_if<FetchFailure>(&fetched)) return failure->reason;
    const auto& doc = std::get<FetchedDocument>(fetched);
    std::string reason;
    auto keyset = parse_jwks(doc.body, reason);
    if (!keyset) return reason;
    ttl = doc.max_age ? std::chrono::duration_cast<std::chrono::milliseconds>(*doc.max_age)
                      : options_.default_ttl;
    ttl = std::min(ttl, options_.max_ttl);
    if (keyset->keys.empty()) {
      spdlog::warn("the keyset from {} has no usable signing key ({} skipped)", options_.source_host,
                   keyset->skipped);
    } else {
      spdlog::debug("fetched {} JWT signing keys from {} ({} skipped), kept {} ms", keyset->keys.size(),
                    options_.source_host, keyset->skipped, ttl.count());
    }
    return std::make_shared<const Keyset>(std::move(*keyset));
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

bool KeysetCache::recently_attempted(std::chrono::steady_clock::time_point now) const {
  return last_attempt_ && now - *last_attempt_ < options_.refresh_min_interval;
}

KeysetUnavailable KeysetCache::unavailable(std::chrono::steady_clock::time_point now) const {
  auto wait = options_.refresh_min_interval;
  if (last_attempt_)
    wait = std::chrono::duration_cast<std::chrono::milliseconds>(*last_attempt_ + wait - now);
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(wait);
  return KeysetUnavailable{std::max(seconds, std::chrono::seconds(1))};
}

}  // namespace modelgw::auth::jwt
