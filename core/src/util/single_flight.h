// Single-flight for the request path's caches: when an entry expires under
// load, the first caller that misses fetches it from storage and every other
// caller that misses on the same key meanwhile waits for that one result, so
// an expiry costs one storage call, not one per request in flight. Callers
// run on the blocking pool (never on an event loop), so waiting is allowed.
#pragma once

#include <future>
#include <mutex>
#include <string>
#include <unordered_map>

namespace modelgw::util {

template <class Value>
class SingleFlight {
 public:
  // Runs `fetch()` unless a call for `key` is already running; then waits for
  // its result. An exception from `fetch` reaches every waiter.
  template <class Fetch>
  Value run(const std::string& key, Fetch&& fetch) {
    std::unique_lock lock(mutex_);
    if (auto it = running_.find(key); it != running_.end()) {
      auto shared = it->second;
      lock.unlock();
      return shared.get();
    }
    std::promise<Value> promise;
    running_.emplace(key, promise.get_future().share());
    lock.unlock();
    try {
      Value value = fetch();
      promise.set_value(value);
      finish(key);
      return value;
    } catch (...) {
      promise.set_exception(std::current_exception());
      finish(key);
      throw;
    }
  }

 private:
  void finish(const std::string& key) {
    std::lock_guard lock(mutex_);
    running_.erase(key);
  }

  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_future<Value>> running_;
};

}  // namespace modelgw::util
