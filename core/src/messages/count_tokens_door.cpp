#include "messages/count_tokens_door.h"

namespace modelgw::messages {

net::Task<std::variant<chat::DoorRequest, errors::ApiError>> CountTokensDoor::open(
    nlohmann::json body, std::string_view /*text*/, std::int64_t /*tenant_id*/,
    std::string_view /*request_id*/, bool native) const {
  std::optional<nlohmann::json> original;
  if (native) original = body;
  auto translated = count_tokens_request(std::move(body));
  if (auto* err = std::get_if<errors::ApiError>(&translated)) co_return std::move(*err);
  chat::DoorRequest out;
  out.chat = std::get<nlohmann::json>(std::move(translated));
  out.native = std::move(original);
  co_return out;
}

}  // namespace modelgw::messages
