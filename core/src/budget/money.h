// Money in integer micro-units of USD (1 USD = 1'000'000): parsed from what
// operators type and printed for people, never through floating point.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace modelgw::budget {

// The largest amount a budget, credit account or top-up may hold: one
// billion USD. Far beyond any real limit, far below int64 overflow.
inline constexpr std::int64_t kMaxMoneyMicros = 1'000'000'000'000'000;

// "12.5", 12.5 or "0.000001": USD with at most 6 decimals, 0 to kMaxMoneyMicros.
// nullopt for anything else (negative, more decimals, exponents, text).
std::optional<std::int64_t> parse_money(const nlohmann::json& value);

// "1.250000" from 1250000.
std::string format_micros(std::int64_t micros);

}  // namespace modelgw::budget
