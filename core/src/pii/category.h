// The PII categories the detector knows, their wire names (as in usage records,
// policies and error messages), placeholder tags and default severities.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::pii {

enum class Category : std::uint8_t {
  email,
  phone,
  payment_card,
  ssn,
  iban,
  ip_address,
  secret,
  date_of_birth,
};

inline constexpr std::size_t kCategoryCount = 8;

enum class Severity : std::uint8_t { low, medium, high, critical };

// "email", "phone", "payment_card", "ssn", "iban", "ip_address", "secret", "date_of_birth".
std::string_view name(Category c);
// "EMAIL", "PHONE", ... (mask placeholders read [EMAIL_1]).
std::string_view tag(Category c);
Severity default_severity(Category c);
std::string_view name(Severity s);
std::optional<Category> category_from_name(std::string_view name);
// "email, phone, ..." for messages that list what is known.
std::string category_names();

inline constexpr std::array<Category, kCategoryCount> kAllCategories = {
    Category::email, Category::phone,      Category::payment_card, Category::ssn,
    Category::iban,  Category::ip_address, Category::secret,       Category::date_of_birth,
};

// A set of categories as a bit mask (bit = 1 << index).
class CategorySet {
 public:
  constexpr CategorySet() = default;
  static CategorySet default_critical();
  constexpr void add(Category c) { bits_ |= bit(c); }
  constexpr bool contains(Category c) const { return (bits_ & bit(c)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const CategorySet&) const = default;

 private:
  static constexpr std::uint16_t bit(Category c) {
    return static_cast<std::uint16_t>(1u << static_cast<unsigned>(c));
  }
  std::uint16_t bits_ = 0;
};

}  // namespace modelgw::pii
