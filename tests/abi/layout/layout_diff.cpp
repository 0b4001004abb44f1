#include "layout_diff.hpp"

#include <cstddef>

namespace abi_layout {
namespace {

void diff_constants(const Layout& before, const Layout& after, LayoutDiff& diff) {
  for (const Constant& old : before.constants) {
    const Constant* now = after.find_constant(old.name);
    if (now == nullptr) {
      diff.lines.push_back("- " + constant_line(old));
      diff.breaking.push_back("constant " + old.name + " was removed or renamed");
    } else if (now->value != old.value) {
      diff.lines.push_back("- " + constant_line(old));
      diff.lines.push_back("+ " + constant_line(*now));
      diff.breaking.push_back("constant " + old.name + " changed its value");
    }
  }
  for (const Constant& now : after.constants) {
    if (before.find_constant(now.name) == nullptr) diff.lines.push_back("+ " + constant_line(now));
  }
}

void diff_struct_header(const Struct& old, const Struct& now, LayoutDiff& diff) {
  if (struct_line(old) == struct_line(now)) return;
  diff.lines.push_back("- " + struct_line(old));
  diff.lines.push_back("+ " + struct_line(now));
  if (now.size < old.size) diff.breaking.push_back(old.name + " shrank");
  if (now.size > old.size && !old.growable) {
    diff.breaking.push_back(old.name + " is fixed (embedded, or stepped through by sizeof) but grew");
  }
  if (now.align != old.align) diff.breaking.push_back(old.name + " changed its alignment");
  if (now.growable != old.growable) diff.breaking.push_back(old.name + " changed between fixed and growable");
}

void diff_struct(const Struct& old, const Struct& now, LayoutDiff& diff) {
  const std::size_t first_line = diff.lines.size();
  diff_struct_header(old, now, diff);
  for (const Field& field : old.fields) {
    const Field* kept = now.find_field(field.name);
    if (kept == nullptr) {
      diff.lines.push_back("- " + field_line(field));
      diff.breaking.push_back(old.name + "." + field.name + " was removed or renamed");
    } else if (kept->offset != field.offset || kept->size != field.size) {
      diff.lines.push_back("- " + field_line(field));
      diff.lines.push_back("+ " + field_line(*kept));
      diff.breaking.push_back(old.name + "." + field.name + " moved or changed its size");
    }
  }
  for (const Field& field : now.fields) {
    if (old.find_field(field.name) != nullptr) continue;
    diff.lines.push_back("+ " + field_line(field));
    if (field.offset < old.size) {
      diff.breaking.push_back(old.name + "." + field.name + " was added inside the struct, not at its end");
    }
  }
  // Name the struct above its changed fields when its own line did not change.
  if (diff.lines.size() > first_line && !diff.lines[first_line].starts_with("- struct ")) {
    diff.lines.insert(diff.lines.begin() + static_cast<std::ptrdiff_t>(first_line), "  " + struct_line(now));
  }
}

void add_whole_struct(const Struct& type, std::string_view sign, LayoutDiff& diff) {
  diff.lines.push_back(std::string(sign) + struct_line(type));
  for (const Field& field : type.fields) diff.lines.push_back(std::string(sign) + field_line(field));
}

}  // namespace

LayoutDiff diff_layouts(const Layout& before, const Layout& after) {
  LayoutDiff diff;
  if (before.major != after.major || before.minor != after.minor) {
    diff.lines.push_back("- " + version_line(before));
    diff.lines.push_back("+ " + version_line(after));
  }
  diff_constants(before, after, diff);
  for (const Struct& old : before.structs) {
    const Struct* now = after.find_struct(old.name);
    if (now == nullptr) {
      add_whole_struct(old, "- ", diff);
      diff.breaking.push_back("struct " + old.name + " was removed or renamed");
    } else {
      diff_struct(old, *now, diff);
    }
  }
  for (const Struct& now : after.structs) {
    if (before.find_struct(now.name) == nullptr) add_whole_struct(now, "+ ", diff);
  }
  return diff;
}

}  // namespace abi_layout
