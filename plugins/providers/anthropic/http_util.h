// Small HTTP helpers: case-insensitive text and header lookup, the host clock.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mgw::anthropic {

// ASCII case-insensitive equality (header names are ASCII tokens).
bool iequals(std::string_view a, std::string_view b) noexcept;

// True when `haystack` contains `needle`, ignoring ASCII case.
bool icontains(std::string_view haystack, std::string_view needle) noexcept;

// True when `s` starts with `prefix`, ignoring ASCII case.
bool istarts_with(std::string_view s, std::string_view prefix) noexcept;

// Value of the first header named `name` (any case), without surrounding
// spaces and tabs.
std::optional<std::string_view> find_header(const mgw_header* headers, std::size_t count,
                                            std::string_view name) noexcept;

// Wall-clock milliseconds from the host (so tests and the gateway agree on
// "now"), or from the system clock when the host table lacks the callback.
int64_t now_unix_ms(const mgw_host_api* host) noexcept;

}  // namespace mgw::anthropic
