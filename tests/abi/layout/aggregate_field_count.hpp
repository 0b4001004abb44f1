// How many fields a C struct has, counted by the compiler: an aggregate can be
// brace-initialised from as many values as it has fields, and no more. The C++
// layout dump compares this count with abi_fields.def, so that a field added
// to plugin.h but not to the list fails the layout tests wherever it sits.
#pragma once

#include <cstddef>
#include <utility>

namespace abi_layout {

// More fields than any struct of plugin.h will have; bounds the count.
inline constexpr std::size_t kMaxFields = 128;

// Converts to any field type, so that it can stand for the value of any field.
struct AnyField {
  template <class T>
  operator T() const noexcept;  // only named in unevaluated braces, never defined
};

template <std::size_t>
using AnyFieldAt = AnyField;

template <class T, std::size_t... I>
constexpr bool brace_initialisable(std::index_sequence<I...>) {
  return requires {
    T{AnyFieldAt<I>{}...};
  };
}

// The number of fields of the aggregate T (kMaxFields + 1 when it has more).
template <class T, std::size_t N = 0>
constexpr std::size_t aggregate_field_count() {
  if constexpr (N > kMaxFields || !brace_initialisable<T>(std::make_index_sequence<N + 1>{})) {
    return N;
  } else {
    return aggregate_field_count<T, N + 1>();
  }
}

}  // namespace abi_layout
