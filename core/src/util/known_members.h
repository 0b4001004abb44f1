// A request body's members among the fixed list of names its API takes,
// read in one pass. A translation then finds each member by an index fixed
// at compile time (a name not in the list does not compile) instead of
// looking it up by name in the body once for every member it reads: on the
// Responses and Messages doors those look-ups, each a walk of the body's
// map comparing C strings, cost more than the translation's own work.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace modelgw::util {

// `Names`: an array of std::string_view with static storage (the API's
// member names).
template <const auto& Names>
class KnownMembers {
 public:
  static constexpr std::size_t kCount = Names.size();

  struct Name {
    std::size_t index;
    // Implicit, so a call reads given["model"]; evaluated while compiling.
    consteval Name(const char* name) : index(index_of(name)) {}  // NOLINT(google-explicit-constructor)
  };

  // `object`: the body; one that is not an object has no members.
  explicit KnownMembers(const nlohmann::json& object) {
    if (!object.is_object()) return;
    for (const auto& [name, value] : object.get_ref<const nlohmann::json::object_t&>()) {
      std::size_t i = 0;
      while (i < kCount && Names[i] != name) ++i;
      if (i == kCount) {
        if (unknown_ == nullptr) unknown_ = &name;
        continue;
      }
      values_[i] = &value;
    }
  }

  // The member's value as given (a JSON null included); nullptr: absent.
  const nlohmann::json* operator[](Name name) const { return values_[name.index]; }
  // The first member, in the body's order, whose name is not in the list;
  // nullptr: none.
  const std::string* unknown() const { return unknown_; }

 private:
  static consteval std::size_t index_of(std::string_view name) {
    for (std::size_t i = 0; i < kCount; ++i) {
      if (Names[i] == name) return i;
    }
    throw std::logic_error("not one of the API's member names");  // not a constant: does not compile
  }

  std::array<const nlohmann::json*, kCount> values_{};
  const std::string* unknown_ = nullptr;
};

}  // namespace modelgw::util
