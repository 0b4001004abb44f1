#include "layout_completeness.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>

namespace abi_layout {
namespace {

std::uint64_t round_up(std::uint64_t value, std::uint64_t align) {
  return (value + align - 1) / align * align;
}

void check_struct(const Struct& type, std::vector<std::string>& problems) {
  if (type.align == 0 || (type.align & (type.align - 1)) != 0) {
    problems.push_back(type.name + " has alignment " + std::to_string(type.align) + ", not a power of two");
    return;
  }
  if (type.fields.empty()) {
    problems.push_back(type.name + " lists no fields");
    return;
  }
  if (type.fields.front().offset != 0) {
    problems.push_back(type.name + ": its first listed field, " + type.fields.front().name +
                       ", is at offset " + std::to_string(type.fields.front().offset) +
                       ": a field before it is not listed");
  }
  for (std::size_t i = 1; i < type.fields.size(); ++i) {
    const Field& prev = type.fields[i - 1];
    const Field& next = type.fields[i];
    const std::uint64_t prev_end = prev.offset + prev.size;
    if (type.find_field(next.name) != &next) {
      problems.push_back(type.name + "." + next.name + " is listed twice");
    } else if (next.offset < prev_end) {
      problems.push_back(type.name + "." + next.name + " is listed after " + prev.name +
                         " but lies before it: list fields in declaration order");
    } else if (next.offset - prev_end >= type.align) {
      problems.push_back(type.name + ": " + std::to_string(next.offset - prev_end) + " bytes between " +
                         prev.name + " and " + next.name + " belong to no listed field");
    }
  }
  const Field& last = type.fields.back();
  const std::uint64_t end = round_up(last.offset + last.size, type.align);
  if (end != type.size) {
    problems.push_back(type.name + ": its listed fields end at " + std::to_string(end) +
                       " (with padding) but it is " + std::to_string(type.size) + " bytes: a field after " +
                       last.name + " is not listed");
  }
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The text with its comments blanked out, so that prose never counts as code.
std::string without_comments(std::string_view text) {
  std::string out(text);
  std::size_t pos = 0;
  while (pos < out.size()) {
    if (out.compare(pos, 2, "/*") == 0) {
      const std::size_t end = out.find("*/", pos + 2);
      const std::size_t stop = end == std::string::npos ? out.size() : end + 2;
      for (std::size_t i = pos; i < stop; ++i) out[i] = out[i] == '\n' ? '\n' : ' ';
      pos = stop;
    } else if (out.compare(pos, 2, "//") == 0) {
      const std::size_t end = out.find('\n', pos);
      const std::size_t stop = end == std::string::npos ? out.size() : end;
      for (std::size_t i = pos; i < stop; ++i) out[i] = ' ';
      pos = stop;
    } else {
      ++pos;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> unlisted_fields(const Layout& layout) {
  std::vector<std::string> problems;
  for (const Struct& type : layout.structs) check_struct(type, problems);
  return problems;
}

std::vector<std::string> unlisted_structs(const Layout& layout, std::string_view header_text) {
  const std::string code = without_comments(header_text);
  std::vector<std::string> missing;
  std::size_t pos = code.find("struct");
  while (pos != std::string::npos) {
    const std::size_t after = pos + 6;
    const bool whole_word = (pos == 0 || !is_identifier_char(code[pos - 1])) && after < code.size() &&
                            std::isspace(static_cast<unsigned char>(code[after])) != 0;
    if (whole_word) {
      std::size_t name_at = code.find_first_not_of(" \t\r\n", after);
      std::size_t name_end = name_at;
      while (name_end < code.size() && is_identifier_char(code[name_end])) ++name_end;
      const std::size_t brace = code.find_first_not_of(" \t\r\n", name_end);
      const std::string name = name_at == std::string::npos ? "" : code.substr(name_at, name_end - name_at);
      if (!name.empty() && brace != std::string::npos && code[brace] == '{' &&
          layout.find_struct(name) == nullptr) {
        missing.push_back(name);
      }
    }
    pos = code.find("struct", after);
  }
  return missing;
}

std::vector<std::string> unlisted_constants(const Layout& layout, std::string_view header_text) {
  const std::string code = without_comments(header_text);
  std::vector<std::string> missing;
  std::size_t line_start = 0;
  while (line_start < code.size()) {
    const std::size_t line_end = std::min(code.find('\n', line_start), code.size());
    const std::string_view line = std::string_view(code).substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    const std::size_t define = line.find_first_not_of(" \t");
    if (define == std::string_view::npos || line.substr(define, 8) != "#define ") continue;
    const std::size_t name_at = line.find_first_not_of(" \t", define + 8);
    if (name_at == std::string_view::npos) continue;
    std::size_t name_end = name_at;
    while (name_end < line.size() && is_identifier_char(line[name_end])) ++name_end;
    const std::string name(line.substr(name_at, name_end - name_at));
    const bool function_like = name_end < line.size() && line[name_end] == '(';
    if (function_like || !name.starts_with("MGW_") || name == "MGW_ABI_MAJOR" || name == "MGW_ABI_MINOR")
      continue;
    if (layout.find_constant(name) == nullptr) missing.push_back(name);
  }
  return missing;
}

}  // namespace abi_layout
