#include "logging/request_log.h"

namespace modelgw::logging {

std::string request_payload(std::string_view request_id, std::string_view message) {
  return with_fields(nlohmann::json{{"request_id", std::string(request_id)}}, message);
}

}  // namespace modelgw::logging
