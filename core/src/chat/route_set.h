// What a configuration reload replaces whole (SIGHUP, `modelgw reload`): the
// providers and their upstream pools, the catalog built on them, the secrets
// to redact, the PII mode plugins, and the chat endpoint wired to them (with
// its retry policy). A request takes the current set once, at its start, and
// holds it to its end: it finishes on the configuration it started with, and
// an old set's pools and plugins live until the last request using it ends.
#pragma once

#include "catalog/catalog.h"
#include "chat/chat_endpoint.h"
#include "chat/secret_redactor.h"
#include "pii/guard.h"
#include "plugins/pii_mode.h"
#include "plugins/provider.h"
#include "upstream/upstream_pool.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace modelgw::chat {

struct RouteSet {
  RouteSet() = default;
  RouteSet(const RouteSet&) = delete;
  RouteSet& operator=(const RouteSet&) = delete;

  // The set is no longer current (a reload replaced it), the loops still
  // run: its idle upstream connections close on their own loops, and those
  // its last requests release close as they come back, so that no socket is
  // left for the set's destruction (which may run as the loops are torn down).
  void retire();

  std::vector<std::unique_ptr<plugins::Provider>> providers;
  std::map<std::string, std::unique_ptr<upstream::UpstreamPool>> pools;  // by provider name
  catalog::Catalog catalog;
  SecretRedactor redactor;
  std::map<std::string, std::unique_ptr<plugins::PiiMode>> pii_modes;  // by mode name
  std::unique_ptr<pii::Guard> pii_guard;
  std::unique_ptr<ChatEndpoint> chat;  // last: it refers to the members above
};

// The current set. Thread-safe: requests read it on every loop while a
// reload replaces it from the main thread.
class RouteHolder {
 public:
  std::shared_ptr<RouteSet> current() const {
    std::lock_guard lock(mutex_);
    return set_;
  }
  // Returns the set replaced (the caller lets it go outside the lock).
  std::shared_ptr<RouteSet> replace(std::shared_ptr<RouteSet> next) {
    std::lock_guard lock(mutex_);
    set_.swap(next);
    return next;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<RouteSet> set_;
};

}  // namespace modelgw::chat
