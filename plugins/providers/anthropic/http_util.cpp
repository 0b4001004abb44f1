#include "http_util.h"

#include <modelgw/sdk.hpp>

#include <chrono>

namespace mgw::anthropic {
namespace {

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string_view trim(std::string_view s) noexcept {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool icontains(std::string_view haystack, std::string_view needle) noexcept {
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (istarts_with(haystack.substr(i), needle)) {
      return true;
    }
  }
  return false;
}

std::optional<std::string_view> find_header(const mgw_header* headers, std::size_t count,
                                            std::string_view name) noexcept {
  if (headers == nullptr) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (iequals(view(headers[i].name), name)) {
      return trim(view(headers[i].value));
    }
  }
  return std::nullopt;
}

int64_t now_unix_ms(const mgw_host_api* host) noexcept {
  if (host != nullptr && MGW_HAS_FIELD(host, mgw_host_api, callback_now_unix_ms) &&
      host->callback_now_unix_ms != nullptr) {
    return host->callback_now_unix_ms(host->host_data);
  }
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace mgw::anthropic
