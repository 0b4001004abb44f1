// A document written as compact JSON text: the text nlohmann's dump()
// gives (members in the document's order, numbers as dump() formats them),
// but each string is written by append_json_string (json_text.h), a whole
// word of plain bytes at a time, where dump() decodes UTF-8 a byte at a
// time, and each float by nlohmann's own float writer (detail::to_chars, the
// one dump() calls) without the serializer dump() builds around every
// value. The chat request a /v1/responses or /v1/messages request becomes,
// and the vendor's native request, are written this way: their two dumps
// were a tenth of the loop's CPU on that door (issue 27).
//
// Valid UTF-8 gives dump()'s text. A byte that is not becomes U+FFFD where
// dump() throws (the default handler) or replaces a whole sequence
// (error_handler_t::replace): valid JSON either way, and never a throw.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace modelgw::util {

// How a float is written. `as_dumped`: dump()'s shortest round-trip form.
// `integral_as_integer`: one that equals an integer within 2^63 as that
// integer, so 1, 1.0 and 1e0 are written alike, as a JSON reader compares
// them (the idempotency digest, idempotency/idempotency_key.cpp); others as
// dumped.
enum class FloatForm { as_dumped, integral_as_integer };

// Appends `doc` to `out`.
void append_json(std::string& out, const nlohmann::json& doc, FloatForm floats = FloatForm::as_dumped);

// `doc` as text; `size_hint`: the bytes expected (the size of the text it
// was parsed from, say), reserved up front.
std::string json_text(const nlohmann::json& doc, std::size_t size_hint = 0);

// Anything else (a string, an ordered_json) would be converted to a
// document first, a copy made silently: say what to write instead.
template <typename T>
void append_json(std::string& out, const T& value, FloatForm floats = FloatForm::as_dumped) = delete;
template <typename T>
std::string json_text(const T& value, std::size_t size_hint = 0) = delete;

}  // namespace modelgw::util
