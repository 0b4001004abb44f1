// One detected PII value: where it is, never what it is.
#pragma once

#include "pii/category.h"

#include <cstdint>

namespace modelgw::pii {

struct Finding {
  Category category;
  std::uint32_t offset;  // byte offset in the scanned text
  std::uint32_t length;  // byte length
  bool operator==(const Finding&) const = default;
};

}  // namespace modelgw::pii
