// Which malloc this process runs on, for `modelgw version` and the start-up
// line: jemalloc in the release binary (README.md, "Memory"), the C
// library's (or a sanitizer's) otherwise. Read at run time, so it tells
// what was linked, not what the build meant to link.
#pragma once

#include <string>

namespace modelgw::util {

// "jemalloc 5.3.0" or "libc malloc".
std::string allocator_name();

}  // namespace modelgw::util
