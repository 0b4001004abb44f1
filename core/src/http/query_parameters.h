// The query string of a GET that reads a list (GET /v1/usage, /v1/audit):
// decoded strictly, so a malformed string or a parameter given twice is a
// 400 naming it rather than a guess at what was meant.
#pragma once

#include "errors/api_error.h"

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace modelgw::http {

using QueryParameters = std::vector<std::pair<std::string, std::string>>;

// The parameters in order, percent-decoded; 400 invalid_parameter when the
// string is not valid URI syntax or a name repeats.
std::variant<QueryParameters, errors::ApiError> strict_query_parameters(std::string_view query);

}  // namespace modelgw::http
