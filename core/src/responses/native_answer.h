// POST /v1/responses, the answer side when the provider served the Responses
// API natively (plugin.h, "Native operations"): the vendor's own response
// object, or its own events, passed on with what the gateway owns written
// over what the vendor said. The response id is the gateway's (the turn is
// kept under it, and previous_response_id names it), `store` and
// `previous_response_id` are what the client asked (the vendor was told
// store: false and the whole conversation), each event is numbered again and
// every body carries the call's request_id.
#pragma once

#include "errors/api_error.h"

#include <modelgw/plugin.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::responses {

class NativeAnswer {
 public:
  // `echo`: what the response repeats of the request (responses_request.h).
  // Read, not copied (a deep copy of its members on every native call): it
  // must outlive this, as the door's shaper that holds both does.
  NativeAnswer(const nlohmann::json& echo, std::string request_id);
  NativeAnswer(nlohmann::json&& echo, std::string request_id) = delete;  // would dangle

  // The whole answer: the provider's response object -> the client's body;
  // nullopt when it is not a response object.
  std::optional<std::string> whole(std::string_view response_object);
  // One event's data object -> its SSE event appended to `out`; false when it
  // is not an object with a string `type`.
  bool event(std::string_view data, std::string& out);
  // The stream failed after it began: response.failed, then `error`.
  void fail(const errors::ApiError& error, std::string& out);
  // The answer's response object as the client got it (from whole(), or the
  // stream's response.completed / response.incomplete); empty until then.
  const std::string& final_response() const { return final_; }

 private:
  // The gateway's members written over the vendor's, and what the request
  // repeats (echo) where the vendor's object leaves it out, as OpenAI's
  // response objects always repeat it.
  void own(nlohmann::json& response) const;
  void append_echo(std::string& out, const std::vector<mgw_json_member>& members) const;
  void append(std::string_view type, nlohmann::json& data, std::string& out);

  const nlohmann::json* echo_;  // an object (an empty one for an echo that is not)
  nlohmann::json store_;
  nlohmann::json previous_response_id_;
  std::string request_id_;
  std::string id_;
  std::string owned_members_;  // "id":...,"store":...,"previous_response_id":... as written
  std::int64_t sequence_ = 0;
  nlohmann::json last_response_;  // the newest response object an event carried
  std::string final_;
};

}  // namespace modelgw::responses
