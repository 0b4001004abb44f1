// What a plugin emitted, as JSON, and its comparison with a fixture's
// expectation. An event is {"chunk": {...}}, {"usage": {...}} or
// {"error": {...}}; an expected usage or error names only the fields it
// pins, an expected chunk or body is compared whole (member order and number
// spelling aside).
#pragma once

#include "json_compare.h"
#include "strict_sinks.h"

#include <string>
#include <vector>

namespace mgw::testkit {

Json usage_json(const mgw_usage& u);
Json error_json(const ErrorSeen& e);
// Every event of `log`, in order (bodies as {"body": {...}}).
std::vector<Json> events_json(const ResponseLog& log);

// Problems for every field `expect` names that `actual` does not match;
// `what` names the thing compared.
void compare_fields(const Json& expect, const Json& actual, const std::string& what);

// Problems where `actual` differs from the expected event list.
void compare_events(const std::vector<Json>& expected, const std::vector<Json>& actual);

// The first difference between two event lists, or empty when identical.
std::string first_difference(const std::vector<Json>& reference, const std::vector<Json>& other);

}  // namespace mgw::testkit
