// Whether abi_fields.def lists all of plugin.h: checked on the dumped layout
// (a field left out leaves bytes no listed field covers) and on the header's
// text (a struct or constant left out is not in the dump at all).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "layout_model.hpp"

namespace abi_layout {

// One sentence per struct whose listed fields do not account for its bytes:
// the first field not at offset 0, a gap between two fields at least as wide
// as the struct's alignment (padding is always narrower), or fields that end,
// rounded up to the alignment, before sizeof. Also fields listed twice or out
// of declaration order.
std::vector<std::string> unlisted_fields(const Layout& layout);

// The structs `header_text` defines (`struct name {`) that the layout lacks.
std::vector<std::string> unlisted_structs(const Layout& layout, std::string_view header_text);

// The object-like MGW_* macros `header_text` defines that the layout lacks
// (MGW_ABI_MAJOR and MGW_ABI_MINOR are its `abi` line).
std::vector<std::string> unlisted_constants(const Layout& layout, std::string_view header_text);

}  // namespace abi_layout
