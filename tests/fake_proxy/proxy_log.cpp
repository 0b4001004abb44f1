#include "proxy_log.h"

#include <nlohmann/json.hpp>

namespace fake_proxy {

void ProxyLog::record(LogEntry entry) {
  std::lock_guard lock(mutex_);
  if (capacity_ == 0) return;
  if (entries_.size() == capacity_) entries_.pop_front();
  entries_.push_back(std::move(entry));
}

void ProxyLog::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

std::string ProxyLog::toJson() const {
  nlohmann::json out = nlohmann::json::array();
  {
    std::lock_guard lock(mutex_);
    for (const auto& e : entries_) {
      out.push_back({{"method", e.method},
                     {"target", e.target},
                     {"auth", e.auth ? nlohmann::json(*e.auth) : nlohmann::json(nullptr)},
                     {"status", e.status}});
    }
  }
  // Targets and user names come from clients and may be invalid UTF-8.
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fake_proxy
