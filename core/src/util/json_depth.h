#pragma once

#include <cstddef>
#include <string_view>

namespace modelgw::util {

// Deepest nesting of arrays/objects in `text`, counting only brackets outside
// strings. Linear and allocation-free; run before parsing untrusted JSON so a
// body like [[[[...]]]] cannot exhaust a thread's stack in a recursive walk.
// Stops early and returns `limit + 1` once the depth exceeds `limit`.
std::size_t json_nesting_depth(std::string_view text, std::size_t limit);

}  // namespace modelgw::util
