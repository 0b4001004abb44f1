#include "pii/category.h"

namespace modelgw::pii {
namespace {

struct Info {
  std::string_view name;
  std::string_view tag;
  Severity severity;
};

// Indexed by Category. Critical by default: the four whose leak is a reportable
// incident on its own (a card, an SSN, a bank account, a credential).
constexpr std::array<Info, kCategoryCount> kInfo = {{
    {"email", "EMAIL", Severity::medium},
    {"phone", "PHONE", Severity::medium},
    {"payment_card", "PAYMENT_CARD", Severity::critical},
    {"ssn", "SSN", Severity::critical},
    {"iban", "IBAN", Severity::critical},
    {"ip_address", "IP_ADDRESS", Severity::low},
    {"secret", "SECRET", Severity::critical},
    {"date_of_birth", "DATE_OF_BIRTH", Severity::high},
}};

const Info& info(Category c) {
  return kInfo[static_cast<std::size_t>(c)];
}

}  // namespace

std::string_view name(Category c) {
  return info(c).name;
}
std::string_view tag(Category c) {
  return info(c).tag;
}
Severity default_severity(Category c) {
  return info(c).severity;
}

std::string_view name(Severity s) {
  switch (s) {
    case Severity::low:
      return "low";
    case Severity::medium:
      return "medium";
    case Severity::high:
      return "high";
    case Severity::critical:
      return "critical";
  }
  return "low";
}

std::optional<Category> category_from_name(std::string_view n) {
  for (Category c : kAllCategories) {
    if (info(c).name == n) return c;
  }
  return std::nullopt;
}

std::string category_names() {
  std::string out;
  for (Category c : kAllCategories) {
    if (!out.empty()) out += ", ";
    out += name(c);
  }
  return out;
}

CategorySet CategorySet::default_critical() {
  CategorySet set;
  for (Category c : kAllCategories) {
    if (default_severity(c) == Severity::critical) set.add(c);
  }
  return set;
}

}  // namespace modelgw::pii
