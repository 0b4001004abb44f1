#include "http/query_parameters.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <set>

namespace modelgw::http {

std::variant<QueryParameters, errors::ApiError> strict_query_parameters(std::string_view query) {
  QueryParameters params;
  try {
    params = Poco::URI("/?" + std::string(query)).getQueryParameters();
  } catch (const Poco::Exception&) {
    return errors::bad_request("invalid_parameter", "the query string is not valid URI syntax");
  }
  std::set<std::string_view> seen;
  for (const auto& [name, value] : params) {
    if (!seen.insert(name).second) {
      return errors::bad_request("invalid_parameter",
                                 "'" + errors::input_excerpt(name, 32) + "' is given twice", name);
    }
  }
  return params;
}

}  // namespace modelgw::http
