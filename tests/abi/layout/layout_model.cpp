#include "layout_model.hpp"

#include <charconv>
#include <cstddef>

namespace abi_layout {
namespace {

// Splits a line at single spaces after its leading indentation.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = line.find_first_not_of(' ');
  while (pos != std::string_view::npos && pos < line.size()) {
    const std::size_t end = line.find(' ', pos);
    out.push_back(line.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    pos = end == std::string_view::npos ? end : line.find_first_not_of(' ', end);
  }
  return out;
}

bool to_number(std::string_view text, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
}

bool parse_version(std::string_view text, Layout& layout) {
  const std::size_t dot = text.find('.');
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  if (dot == std::string_view::npos || !to_number(text.substr(0, dot), major) ||
      !to_number(text.substr(dot + 1), minor) || major > 0xffff || minor > 0xffff) {
    return false;
  }
  layout.major = static_cast<int>(major);
  layout.minor = static_cast<int>(minor);
  return true;
}

// Parses one non-comment line into `layout`; returns what is wrong, or "".
std::string parse_line(std::string_view line, Layout& layout) {
  const std::vector<std::string_view> w = words(line);
  if (w.empty()) return "an empty line";
  if (line.starts_with("  ")) {
    Field field;
    field.name = w[0];
    if (layout.structs.empty()) return "a field before any struct";
    if (w.size() != 5 || w[1] != "offset" || w[3] != "size" || !to_number(w[2], field.offset) ||
        !to_number(w[4], field.size)) {
      return "not `  <field> offset <n> size <n>`";
    }
    layout.structs.back().fields.push_back(std::move(field));
    return "";
  }
  if (w[0] == "abi") {
    if (w.size() != 2 || !parse_version(w[1], layout)) return "not `abi <major>.<minor>`";
    return "";
  }
  if (w[0] == "pointer_size") {
    if (w.size() != 2 || !to_number(w[1], layout.pointer_size)) return "not `pointer_size <n>`";
    return "";
  }
  if (w[0] == "const") {
    if (w.size() < 3) return "not `const <NAME> <value>`";
    const std::size_t value_at = static_cast<std::size_t>(w[2].data() - line.data());
    layout.constants.push_back({std::string(w[1]), std::string(line.substr(value_at))});
    return "";
  }
  if (w[0] == "struct") {
    Struct type;
    if (w.size() > 1) type.name = w[1];
    if (w.size() != 7 || w[2] != "size" || w[4] != "align" || !to_number(w[3], type.size) ||
        !to_number(w[5], type.align) || (w[6] != "growable" && w[6] != "fixed")) {
      return "not `struct <name> size <n> align <n> <growable|fixed>`";
    }
    type.growable = w[6] == "growable";
    layout.structs.push_back(std::move(type));
    return "";
  }
  return "an unknown line";
}

}  // namespace

const Field* Struct::find_field(std::string_view field) const {
  for (const Field& f : fields) {
    if (f.name == field) return &f;
  }
  return nullptr;
}

const Struct* Layout::find_struct(std::string_view name) const {
  for (const Struct& s : structs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const Constant* Layout::find_constant(std::string_view name) const {
  for (const Constant& c : constants) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::optional<Layout> parse_layout(std::string_view text, std::string& error) {
  Layout layout;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.starts_with('#')) continue;
    if (std::string problem = parse_line(line, layout); !problem.empty()) {
      error = "line " + std::to_string(line_number) + " is " + problem + ": " + std::string(line);
      return std::nullopt;
    }
  }
  if (layout.major < 0 || layout.pointer_size == 0) {
    error = "no `abi` or `pointer_size` line";
    return std::nullopt;
  }
  return layout;
}

std::string version_line(const Layout& layout) {
  return "abi " + std::to_string(layout.major) + "." + std::to_string(layout.minor);
}

std::string constant_line(const Constant& constant) {
  return "const " + constant.name + " " + constant.value;
}

std::string struct_line(const Struct& type) {
  return "struct " + type.name + " size " + std::to_string(type.size) + " align " +
         std::to_string(type.align) + (type.growable ? " growable" : " fixed");
}

std::string field_line(const Field& field) {
  return "  " + field.name + " offset " + std::to_string(field.offset) + " size " +
         std::to_string(field.size);
}

}  // namespace abi_layout
