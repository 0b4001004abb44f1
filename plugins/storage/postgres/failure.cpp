#include "failure.h"

namespace mgw_pg {

mgw_status status_from_sqlstate(std::string_view s) noexcept {
  if (s == "23505") return MGW_CONFLICT;
  if (s == "23503") return MGW_INVALID_ARGUMENT;
  if (s.starts_with("22")) return MGW_INVALID_ARGUMENT;
  // 57014: statement_timeout ran out; 55P03: lock_timeout; 53: out of
  // connections, memory or disk; 40: serialization or deadlock after retries.
  if (s == "57014" || s == "55P03" || s.starts_with("53") || s.starts_with("40") || connection_lost(s))
    return MGW_UNAVAILABLE;
  return MGW_INTERNAL;
}

bool connection_lost(std::string_view s) noexcept {
  return s.starts_with("08") || s == "57P01" || s == "57P02" || s == "57P03";
}

std::string primary_message(std::string_view what) {
  auto line = what.substr(0, what.find('\n'));
  for (std::string_view severity : {"ERROR:", "FATAL:", "PANIC:"}) {
    if (line.starts_with(severity)) {
      line.remove_prefix(severity.size());
      break;
    }
  }
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return one_line(line);
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool blank = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace mgw_pg
