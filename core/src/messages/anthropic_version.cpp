#include "messages/anthropic_version.h"

namespace modelgw::messages {
namespace {

// YYYY-MM-DD, digits where digits go.
bool is_date(std::string_view v) {
  if (v.size() != 10 || v[4] != '-' || v[7] != '-') return false;
  for (const std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (v[i] < '0' || v[i] > '9') return false;
  }
  const int month = (v[5] - '0') * 10 + (v[6] - '0');
  const int day = (v[8] - '0') * 10 + (v[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

}  // namespace

std::optional<errors::ApiError> check_anthropic_version(std::string_view header) {
  // Dates compare as text: the first published version is 2023-01-01.
  if (header.empty() || (is_date(header) && header >= std::string_view("2023-01-01"))) return std::nullopt;
  return errors::bad_request("invalid_parameter",
                             "anthropic-version: '" + errors::input_excerpt(header, 32) +
                                 "' is not a version of Anthropic's API (a date from 2023-01-01 on, e.g. "
                                 "2023-06-01)",
                             "anthropic-version");
}

}  // namespace modelgw::messages
