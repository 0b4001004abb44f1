#include "anthropic_cache.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>

#include "reply.h"

namespace fake_upstream::anthropic {
namespace {

constexpr size_t kMaxPrefixes = 4096;

bool hasMarker(const nlohmann::json& block) {
  if (!block.is_object()) return false;
  const auto it = block.find("cache_control");
  return it != block.end() && !it->is_null();
}

bool anyMarker(const nlohmann::json& blocks) {
  if (!blocks.is_array()) return false;
  for (const auto& b : blocks) {
    if (hasMarker(b)) return true;
  }
  return false;
}

int messageTokens(const nlohmann::json& content) {
  std::string text;
  appendContentText(content, text);
  return 4 + static_cast<int>((text.size() + 3) / 4);
}

class SeenPrefixes {
 public:
  // True the first time `key` is seen.
  bool firstTime(const std::string& key) {
    std::lock_guard lock(mutex_);
    if (seen_.size() >= kMaxPrefixes) seen_.clear();
    return seen_.insert(key).second;
  }

 private:
  std::mutex mutex_;
  std::unordered_set<std::string> seen_;
};

SeenPrefixes& seenPrefixes() {
  static SeenPrefixes instance;
  return instance;
}

}  // namespace

CacheUsage cacheUsageFor(const nlohmann::json& body, std::string_view model) {
  static const nlohmann::json kNone;
  const auto member = [&](const char* key) -> const nlohmann::json& {
    const auto it = body.find(key);
    return it == body.end() ? kNone : *it;
  };
  const nlohmann::json& tools = member("tools");
  const nlohmann::json& system = member("system");
  const nlohmann::json& messages = member("messages");

  // Where the last marker is: in tools (up to index lastTool), else in
  // system or messages (up to index lastMessage; -1 means system only).
  long lastTool = -1;
  bool inConversation = anyMarker(system);
  long lastMessage = -1;
  if (tools.is_array()) {
    for (size_t i = 0; i < tools.size(); ++i) {
      if (hasMarker(tools[i])) lastTool = static_cast<long>(i);
    }
  }
  if (messages.is_array()) {
    for (size_t i = 0; i < messages.size(); ++i) {
      const auto& m = messages[i];
      const auto content = m.is_object() ? m.find("content") : m.end();
      if (m.is_object() && content != m.end() && anyMarker(*content)) {
        inConversation = true;
        lastMessage = static_cast<long>(i);
      }
    }
  }
  if (lastTool < 0 && !inConversation) return {};

  nlohmann::json prefix = nlohmann::json::object();
  prefix["model"] = model;
  int tokens = 0;
  if (tools.is_array()) {
    const size_t toolCount = inConversation ? tools.size() : static_cast<size_t>(lastTool + 1);
    prefix["tools"] = nlohmann::json(tools.begin(), tools.begin() + static_cast<long>(toolCount));
  }
  if (inConversation) {
    if (!system.is_null()) {
      prefix["system"] = system;
      tokens += messageTokens(system);
    }
    nlohmann::json held = nlohmann::json::array();
    for (long i = 0; i <= lastMessage; ++i) {
      const auto& m = messages[static_cast<size_t>(i)];
      held.push_back(m);
      const auto content = m.is_object() ? m.find("content") : m.end();
      tokens += messageTokens(content != m.end() ? *content : kNone);
    }
    prefix["messages"] = std::move(held);
  }
  CacheUsage usage;
  usage.cached = true;
  if (seenPrefixes().firstTime(prefix.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))) {
    usage.creationTokens = tokens;
  } else {
    usage.readTokens = tokens;
  }
  return usage;
}

}  // namespace fake_upstream::anthropic
