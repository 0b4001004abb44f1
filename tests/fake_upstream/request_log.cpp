#include "request_log.h"

#include <Poco/Net/HTTPServerRequest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

namespace fake_upstream {
namespace {

// Whether one object of `body` gives a member name twice: the parsed body
// then shows only the last value, so the entry also keeps the text as sent
// ("raw"), where a test sees what a reader taking the first would have read.
// Checked once, as the request is recorded, and only for a body of up to
// kMaxCheckedBytes (a test that repeats a name sends a small body): the
// check runs before the fake answers, and PiiTest's 400 KB and 10 MB bodies
// parsed with a callback under ASan made the gateway's call time out.
constexpr std::size_t kMaxCheckedBytes = 64 * 1024;

bool repeats_a_name(const std::string& body) {
  if (body.size() > kMaxCheckedBytes) return false;
  bool repeated = false;
  std::vector<std::unordered_set<std::string>> names;  // of each open object
  const auto document = nlohmann::json::parse(
      body,
      [&](int, nlohmann::json::parse_event_t event, nlohmann::json& value) {
        using Event = nlohmann::json::parse_event_t;
        if (event == Event::object_start) names.emplace_back();
        if (event == Event::object_end && !names.empty()) names.pop_back();
        if (event == Event::key && !names.empty()) {
          repeated = !names.back().insert(value.get_ref<const std::string&>()).second || repeated;
        }
        return true;
      },
      /*allow_exceptions=*/false);
  (void)document;  // only the names are wanted
  return repeated;
}

}  // namespace

void RequestLog::record(const Poco::Net::HTTPServerRequest& request, std::string body) {
  if (capacity_ == 0) return;
  // Build the entry before taking the lock so concurrent handlers only
  // contend for the deque operations.
  const bool repeats = repeats_a_name(body);
  Entry entry{request.getMethod(), request.getURI(), {}, std::move(body), repeats};
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
    if (e.repeats_a_name) out.back()["raw"] = e.body;
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
