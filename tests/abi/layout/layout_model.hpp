// The canonical layout text the layout dumps print and sdk/abi/layout.txt
// holds, as data:
//
//   # comment
//   abi <major>.<minor>
//   pointer_size <bytes>
//   const <NAME> <value>
//   struct <name> size <n> align <n> <growable|fixed>
//     <field> offset <n> size <n>
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abi_layout {

struct Field {
  std::string name;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

struct Struct {
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t align = 0;
  bool growable = false;
  std::vector<Field> fields;

  const Field* find_field(std::string_view field) const;
};

struct Constant {
  std::string name;
  std::string value;  // the number, or the string with its quotes
};

struct Layout {
  int major = -1;
  int minor = -1;
  std::uint64_t pointer_size = 0;
  std::vector<Constant> constants;
  std::vector<Struct> structs;

  const Struct* find_struct(std::string_view name) const;
  const Constant* find_constant(std::string_view name) const;
};

// Parses the canonical text. On malformed text returns nothing and sets
// `error` to the line number and what is wrong with it.
std::optional<Layout> parse_layout(std::string_view text, std::string& error);

// The lines of the canonical text, as the dumps print them (no newline).
std::string version_line(const Layout& layout);
std::string constant_line(const Constant& constant);
std::string struct_line(const Struct& type);
std::string field_line(const Field& field);

}  // namespace abi_layout
