// Budget and rate-limit windows: each resets at the next UTC boundary of its
// length. A ledger's window is named by its start, so every process that
// shares a store agrees on it without talking.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace modelgw::budget {

enum class Window { minute, hour, day, month, none };

// "hour", "day", "month", "none" (and "minute", used by rate limits only).
std::optional<Window> parse_window(std::string_view name);
std::string_view window_name(Window window);

// The start of the window holding `now_unix_ms`, and the start of the next
// (when it resets); 0 and INT64_MAX for Window::none.
std::int64_t window_start(Window window, std::int64_t now_unix_ms);
std::int64_t window_end(Window window, std::int64_t now_unix_ms);

}  // namespace modelgw::budget
