// A scripted KeysetSource and a hand-driven clock for the cache tests: the
// source answers from a queue (repeating its last answer), counts its calls,
// and can be held until the test releases it, so single-flight is observable.
#pragma once

#include "auth/jwt/keyset_cache.h"
#include "auth/jwt/keyset_source.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <variant>

namespace modelgw::testing::jwt {

using Answer = std::variant<auth::jwt::FetchedDocument, auth::jwt::FetchFailure>;

inline Answer document(std::string body, std::optional<std::chrono::seconds> max_age = std::nullopt) {
  return auth::jwt::FetchedDocument{std::move(body), max_age};
}
inline Answer failure(std::string reason = "connection refused") {
  return auth::jwt::FetchFailure{std::move(reason)};
}

// Shared between the test and the source the cache owns.
struct Script {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Answer> answers;  // the last one repeats
  std::atomic<int> calls{0};
  bool hold = false;      // fetch() waits (bounded) while true
  bool in_fetch = false;  // a fetch() is waiting on `hold`

  void answer(Answer a) {
    std::lock_guard lock(mutex);
    answers.clear();
    answers.push_back(std::move(a));
  }
  void then(Answer a) {
    std::lock_guard lock(mutex);
    answers.push_back(std::move(a));
  }
  void set_hold(bool on) {
    std::lock_guard lock(mutex);
    hold = on;
    changed.notify_all();
  }
  // True once a fetch is waiting on the hold (at most `limit`).
  bool wait_in_fetch(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, limit, [&] { return in_fetch; });
  }
};

class ScriptedSource final : public auth::jwt::KeysetSource {
 public:
  explicit ScriptedSource(std::shared_ptr<Script> script) : script_(std::move(script)) {}

  Answer fetch() override {
    ++script_->calls;
    std::unique_lock lock(script_->mutex);
    script_->in_fetch = true;
    script_->changed.notify_all();
    script_->changed.wait_for(lock, std::chrono::seconds(10), [&] { return !script_->hold; });
    script_->in_fetch = false;
    if (script_->answers.empty()) return failure("no answer scripted");
    Answer a = script_->answers.front();
    if (script_->answers.size() > 1) script_->answers.pop_front();
    return a;
  }

 private:
  std::shared_ptr<Script> script_;
};

// A steady clock the test moves by hand.
struct ManualClock {
  std::shared_ptr<std::atomic<std::int64_t>> ms = std::make_shared<std::atomic<std::int64_t>>(1'000'000);

  auth::jwt::KeysetCache::Clock function() const {
    return [ms = ms] { return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms->load())); };
  }
  void advance(std::chrono::milliseconds by) { *ms += by.count(); }
};

inline auth::jwt::KeysetCacheOptions cache_options() {
  auth::jwt::KeysetCacheOptions o;
  o.default_ttl = std::chrono::milliseconds(300000);
  o.max_ttl = std::chrono::milliseconds(3600000);
  o.refresh_min_interval = std::chrono::milliseconds(10000);
  o.max_wait = std::chrono::milliseconds(5000);
  o.source_host = "idp.example";
  return o;
}

}  // namespace modelgw::testing::jwt
