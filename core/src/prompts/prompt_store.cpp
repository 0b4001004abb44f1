#include "prompts/prompt_store.h"

namespace modelgw::prompts {
namespace {

// Bounds memory under a flood of made-up names: the cache is simply cleared
// when it grows past this.
constexpr std::size_t kMaxEntries = 10000;

}  // namespace

PromptStore::PromptStore(plugins::Storage& storage, int cache_ttl_ms)
    : storage_(storage), ttl_(cache_ttl_ms) {}

std::string PromptStore::key(std::int64_t tenant_id, const std::string& name, std::int64_t version) {
  // '\n' cannot occur in a prompt name, so the parts cannot run together.
  return std::to_string(tenant_id) + "\n" + name + "\n" + std::to_string(version);
}

std::shared_ptr<const PromptVersion> PromptStore::find(std::int64_t tenant_id, const std::string& name,
                                                       std::int64_t version) {
  const auto now = std::chrono::steady_clock::now();
  const std::string k = key(tenant_id, name, version);
  if (ttl_.count() > 0) {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(k); it != cache_.end() && it->second.expires > now) return it->second.prompt;
  }
  std::shared_ptr<const PromptVersion> found;
  if (auto row = storage_.find_prompt_version(tenant_id, name, version)) {
    found = std::make_shared<const PromptVersion>(from_row(*row));
  }
  if (ttl_.count() > 0) {
    std::lock_guard lock(mutex_);
    if (cache_.size() >= kMaxEntries) cache_.clear();
    cache_[k] = Entry{found, now + ttl_};
  }
  return found;
}

void PromptStore::forget(std::int64_t tenant_id, const std::string& name) {
  const std::string prefix = std::to_string(tenant_id) + "\n" + name + "\n";
  std::lock_guard lock(mutex_);
  for (auto it = cache_.begin(); it != cache_.end();) {
    it = it->first.compare(0, prefix.size(), prefix) == 0 ? cache_.erase(it) : std::next(it);
  }
}

}  // namespace modelgw::prompts
