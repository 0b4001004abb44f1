// A request body parsed into an nlohmann document through simdjson. The
// gateway's stages read nlohmann documents; nlohmann's own parser lexes a
// character at a time and was about a sixth of all CPU per chat request at
// saturation (issue 27). simdjson validates the same grammar (RFC 8259,
// UTF-8, surrogate pairs) an order of magnitude faster; the document is then
// built from its tape, each string copied whole.
#pragma once

#include "util/json_body.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace modelgw::util {

// The largest text parsed this way: each thread keeps a parser sized for
// what it has parsed, so a larger body goes to nlohmann instead.
inline constexpr std::size_t kFastParseMaxBytes = 256 * 1024;

// `text` as a document, the same one nlohmann::json::parse gives (duplicate
// keys: the last wins; an integer without a minus sign is unsigned, and so
// is "-0", which nlohmann makes a signed 0: the same value, written "0").
// nullopt when simdjson refuses it or it is not one this parse takes:
// invalid JSON, nested deeper than kMaxJsonDepth, an integer past 64 bits
// (nlohmann reads it as a float), or longer than kFastParseMaxBytes. The
// caller then parses with nlohmann, which says why. `repeated_key`, when
// given: set to whether an object of the text gives a member name twice.
std::optional<nlohmann::json> parse_json_fast(std::string_view text, bool* repeated_key = nullptr);

// nlohmann::json::accept(text), answered by simdjson when it can: a text it
// refuses (deeper than kMaxJsonDepth, a 65-bit integer, too long, invalid)
// is asked of nlohmann. For a vendor's answer checked before it is spliced.
bool is_json(std::string_view text);

}  // namespace modelgw::util
