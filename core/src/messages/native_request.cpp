#include "messages/native_request.h"

namespace modelgw::messages {

nlohmann::json native_request(nlohmann::json body) {
  return body;
}

}  // namespace modelgw::messages
