#include "budget/money.h"

#include <cstdio>

namespace modelgw::budget {

std::optional<std::int64_t> parse_money(const nlohmann::json& value) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_number_integer() || value.is_number_unsigned()) {
    text = value.dump();
  } else if (value.is_number_float()) {
    // The shortest text that reads back as the same double: what was typed,
    // for any amount with few enough digits to be money.
    text = value.dump();
  } else {
    return std::nullopt;
  }
  if (text.empty() || text.size() > 32) return std::nullopt;
  std::int64_t units = 0;
  std::int64_t fraction = 0;
  int decimals = -1;  // -1: no point seen yet
  for (char c : text) {
    if (c == '.') {
      if (decimals >= 0) return std::nullopt;
      decimals = 0;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    if (decimals >= 0) {
      if (++decimals > 6) {
        if (c != '0') return std::nullopt;  // "1.5000000" is fine, "1.0000001" is not
        continue;
      }
      fraction = fraction * 10 + (c - '0');
    } else {
      units = units * 10 + (c - '0');
      if (units > kMaxMoneyMicros / 1'000'000) return std::nullopt;
    }
  }
  if (decimals == 0 || text.front() == '.') return std::nullopt;  // "1." and ".5" are typos
  for (int d = std::max(decimals, 0); d < 6; ++d) fraction *= 10;
  const std::int64_t micros = units * 1'000'000 + fraction;
  if (micros > kMaxMoneyMicros) return std::nullopt;
  return micros;
}

std::string format_micros(std::int64_t micros) {
  const bool negative = micros < 0;
  // Through uint64: the magnitude of INT64_MIN fits it.
  const auto magnitude =
      negative ? 0ULL - static_cast<unsigned long long>(micros) : static_cast<unsigned long long>(micros);
  const auto units = static_cast<unsigned long long>(magnitude / 1'000'000);
  const auto fraction = static_cast<unsigned long long>(magnitude % 1'000'000);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llu.%06llu", negative ? "-" : "", units, fraction);
  return buf;
}

}  // namespace modelgw::budget
