#include "metrics/exposition.h"

#include <array>
#include <charconv>
#include <cmath>

namespace modelgw::metrics {
namespace {

void open_sample(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels,
                 std::string_view extra) {
  out.append(name);
  out.append(suffix);
  if (!labels.empty() || !extra.empty()) {
    out.push_back('{');
    out.append(labels);
    if (!labels.empty() && !extra.empty()) out.push_back(',');
    out.append(extra);
    out.push_back('}');
  }
  out.push_back(' ');
}

void open_sample(std::string& out, std::string_view name, std::string_view labels) {
  open_sample(out, name, {}, labels, {});
}

void append_double(std::string& out, double value);

template <typename T>
void append_number(std::string& out, T value) {
  std::array<char, 32> buf;
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  out.append(buf.data(), ec == std::errc() ? end : buf.data());
}

// HELP text escapes only '\\' and newlines.
void append_help(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

void append_double(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    append_number(out, value);
  }
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

void write_family(std::string& out, std::string_view name, std::string_view help, std::string_view type) {
  out += "# HELP ";
  out.append(name);
  out.push_back(' ');
  append_help(out, help);
  out += "\n# TYPE ";
  out.append(name);
  out.push_back(' ');
  out.append(type);
  out.push_back('\n');
}

void write_sample(std::string& out, std::string_view name, std::string_view labels, std::uint64_t value) {
  open_sample(out, name, labels);
  append_number(out, value);
  out.push_back('\n');
}

void write_sample(std::string& out, std::string_view name, std::string_view labels, std::int64_t value) {
  open_sample(out, name, labels);
  append_number(out, value);
  out.push_back('\n');
}

void write_sample(std::string& out, std::string_view name, std::string_view labels, double value) {
  open_sample(out, name, labels);
  append_double(out, value);
  out.push_back('\n');
}

void write_sample(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels,
                  std::string_view extra, std::uint64_t value) {
  open_sample(out, name, suffix, labels, extra);
  append_number(out, value);
  out.push_back('\n');
}

void write_sample(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels,
                  std::string_view extra, double value) {
  open_sample(out, name, suffix, labels, extra);
  append_double(out, value);
  out.push_back('\n');
}

std::string join_labels(std::string_view a, std::string_view b) {
  std::string out(a);
  if (!a.empty() && !b.empty()) out.push_back(',');
  out.append(b);
  return out;
}

}  // namespace modelgw::metrics
