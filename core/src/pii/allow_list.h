// A tenant's allow-list: values that are never findings (its own support
// address, its hotline). Values compare as people mean them: emails case-
// insensitively, everything else by its letters and digits only, so
// "+1 (800) 555-0100" allows "+1-800-555-0100".
#pragma once

#include "pii/category.h"

#include <string>
#include <string_view>
#include <unordered_set>

namespace modelgw::pii {

class AllowList {
 public:
  void add(std::string_view value);
  bool empty() const { return lower_.empty(); }
  bool allows(Category category, std::string_view value) const;

 private:
  std::unordered_set<std::string> lower_;  // ASCII lower-cased, for emails
  std::unordered_set<std::string> alnum_;  // letters and digits only, lower-cased
};

}  // namespace modelgw::pii
