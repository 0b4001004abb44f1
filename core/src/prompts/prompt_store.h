// Named prompts as the request path reads them: storage behind a short-lived
// cache, so invoking a prompt rarely touches the database. Changes made
// through this process (the internal surface) are seen at once; changes made
// by another process (the CLI) within the cache TTL.
#pragma once

#include "plugins/storage.h"
#include "prompts/prompt_version.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace modelgw::prompts {

class PromptStore {
 public:
  PromptStore(plugins::Storage& storage, int cache_ttl_ms);

  // The version (0: the active one), or nullptr when there is none. Throws
  // plugins::StorageError when storage fails.
  std::shared_ptr<const PromptVersion> find(std::int64_t tenant_id, const std::string& name,
                                            std::int64_t version);

  // Drops what is cached for one prompt; call after changing it.
  void forget(std::int64_t tenant_id, const std::string& name);

 private:
  struct Entry {
    std::shared_ptr<const PromptVersion> prompt;  // nullptr: known to be absent
    std::chrono::steady_clock::time_point expires;
  };
  static std::string key(std::int64_t tenant_id, const std::string& name, std::int64_t version);

  plugins::Storage& storage_;
  std::chrono::milliseconds ttl_;
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> cache_;
};

}  // namespace modelgw::prompts
