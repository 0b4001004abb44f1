#include "http_util.h"

#include <modelgw/sdk.hpp>

#include <chrono>

namespace mgw::gemini {
namespace {

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

bool unreserved(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
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

bool icontains(std::string_view haystack, std::string_view needle) noexcept {
  if (needle.size() > haystack.size()) {
    return false;
  }
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (iequals(haystack.substr(i, needle.size()), needle)) {
      return true;
    }
  }
  return false;
}

bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
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

std::string percent_encode_segment(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (unreserved(c)) {
      out.push_back(c);
      continue;
    }
    const auto u = static_cast<unsigned char>(c);
    out.push_back('%');
    out.push_back(kHex[u >> 4]);
    out.push_back(kHex[u & 0x0F]);
  }
  return out;
}

}  // namespace mgw::gemini
