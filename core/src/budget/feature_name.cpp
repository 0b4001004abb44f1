#include "budget/feature_name.h"

#include <algorithm>
#include <string>

namespace modelgw::budget {

std::optional<errors::ApiError> check_feature(std::string_view feature) {
  const bool ok =
      !feature.empty() && feature.size() <= 64 && std::all_of(feature.begin(), feature.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == ':' || c == '-';
      });
  if (ok) return std::nullopt;
  return errors::bad_request("invalid_parameter",
                             "the X-Feature header must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_', "
                             "':' and '-' (got " +
                                 std::to_string(feature.size()) + " bytes)",
                             "X-Feature");
}

}  // namespace modelgw::budget
