#include "messages/anthropic_version.h"

namespace modelgw::messages {

std::optional<errors::ApiError> check_anthropic_version(std::string_view header) {
  if (header.empty() || header == "2023-06-01" || header == "2023-01-01") return std::nullopt;
  return errors::bad_request("invalid_parameter",
                             "anthropic-version: '" + errors::input_excerpt(header, 32) +
                                 "' is not a version this gateway serves; send 2023-06-01",
                             "anthropic-version");
}

}  // namespace modelgw::messages
