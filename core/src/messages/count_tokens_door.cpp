#include "messages/count_tokens_door.h"

namespace modelgw::messages {

net::Task<std::variant<chat::DoorRequest, errors::ApiError>> CountTokensDoor::open(
    nlohmann::json body, std::string_view /*text*/, std::int64_t /*tenant_id*/,
    std::string_view /*request_id*/, bool native) const {
  auto translated = count_tokens_request(body);
  if (auto* err = std::get_if<errors::ApiError>(&translated)) co_return std::move(*err);
  chat::DoorRequest out;
  out.chat = std::get<nlohmann::json>(std::move(translated));
  if (native) out.native = std::move(body);  // the Messages form, as the client wrote it
  co_return out;
}

}  // namespace modelgw::messages
