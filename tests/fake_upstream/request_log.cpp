#include "request_log.h"

#include <Poco/Net/HTTPServerRequest.h>

#include <cctype>
#include <nlohmann/json.hpp>

namespace fake_upstream {

void RequestLog::record(const Poco::Net::HTTPServerRequest& request, std::string body) {
  if (capacity_ == 0) return;
  // Build the entry before taking the lock so concurrent handlers only
  // contend for the deque operations.
  Entry entry{request.getMethod(), request.getURI(), {}, std::move(body)};
  entry.headers.reserve(request.size());
  for (const auto& [name, value] : request) entry.headers.emplace_back(name, value);

  std::lock_guard lock(mutex_);
  if (entries_.size() >= capacity_) entries_.pop_front();
  entries_.push_back(std::move(entry));
}

std::string RequestLog::toJson() const {
  std::deque<Entry> snapshot;
  {
    std::lock_guard lock(mutex_);
    snapshot = entries_;
  }
  auto out = nlohmann::json::array();
  for (const auto& e : snapshot) {
    auto headers = nlohmann::json::object();
    for (const auto& [name, value] : e.headers) {
      std::string lower(name);
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      headers[lower] = value;
    }
    auto body = nlohmann::json::parse(e.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) body = e.body;
    const auto q = e.uri.find('?');
    out.push_back({{"method", e.method},
                   {"path", e.uri.substr(0, q)},
                   {"query", q == std::string::npos ? std::string() : e.uri.substr(q + 1)},
                   {"headers", std::move(headers)},
                   {"body", std::move(body)}});
  }
  // Invalid UTF-8 in a raw body must not make the inspection endpoint throw.
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

size_t RequestLog::clear() {
  std::lock_guard lock(mutex_);
  const auto n = entries_.size();
  entries_.clear();
  return n;
}

}  // namespace fake_upstream
