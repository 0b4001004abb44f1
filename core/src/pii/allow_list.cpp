#include "pii/allow_list.h"

namespace modelgw::pii {
namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowered(std::string_view v) {
  std::string out(v);
  for (char& c : out) c = lower(c);
  return out;
}

std::string alnum_only(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) out.push_back(lower(c));
  }
  return out;
}

}  // namespace

void AllowList::add(std::string_view value) {
  lower_.insert(lowered(value));
  if (auto a = alnum_only(value); !a.empty()) alnum_.insert(std::move(a));
}

bool AllowList::allows(Category category, std::string_view value) const {
  if (lower_.empty()) return false;
  if (category == Category::email) return lower_.count(lowered(value)) != 0;
  return alnum_.count(alnum_only(value)) != 0;
}

}  // namespace modelgw::pii
