// A request body read as a JSON object, with the error a client can act on:
// empty, nested too deep, not JSON (at which byte), a number out of range (at
// which member), or not an object. Shared by every API that takes JSON.
#pragma once

#include "errors/api_error.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace modelgw::util {

// The deepest nesting of arrays and objects a request body may have.
inline constexpr std::size_t kMaxJsonDepth = 64;

// `members`: what the API's body holds, for the message that says what to send
// ("model and messages"). `repeated_key`, when given: set to whether an
// object of the body gives a member name twice (the document keeps the last
// value, as nlohmann does; a reader of the text as written may take another).
std::variant<nlohmann::json, errors::ApiError> parse_json_object(std::string_view body,
                                                                 std::string_view members = "its members",
                                                                 bool* repeated_key = nullptr);

// "null", "a boolean", "a number", "a string", "an array", "an object".
std::string type_name(const nlohmann::json& v);

}  // namespace modelgw::util
