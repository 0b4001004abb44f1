// Hand-written JSON text helpers. The hot path builds its bodies by appending
// to a reused std::string instead of going through nlohmann::json, which keeps
// key order identical to OpenAI's and avoids a tree allocation per response.
#pragma once

#include <string>
#include <string_view>

namespace fake_upstream {

// Appends `s` as a quoted JSON string. Bytes >= 0x80 are copied as they are:
// the input always comes from nlohmann::json, which already checked UTF-8.
void appendJsonString(std::string& out, std::string_view s);

// Appends `s` quoted, or `null` when `s` is nullptr.
void appendJsonStringOrNull(std::string& out, const char* s);

}  // namespace fake_upstream
