#include "trace/trace_context.h"

#include "util/thread_random.h"

#include <random>

namespace modelgw::trace {
namespace {

constexpr char kHex[] = "0123456789abcdef";
// "00-" + 32 + "-" + 16 + "-" + 2: the whole of a version-00 traceparent.
constexpr std::size_t kVersion00Size = 55;
constexpr std::uint8_t kSampled = 0x01;

bool lower_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool lower_hex(std::string_view s) {
  for (char c : s) {
    if (!lower_hex(c)) return false;
  }
  return true;
}

bool all_zeros(std::string_view s) {
  return s.find_first_not_of('0') == std::string_view::npos;
}

int nibble(char c) {
  return c <= '9' ? c - '0' : c - 'a' + 10;
}

std::mt19937_64& generator() {
  return util::thread_random();
}

// `words` 64-bit draws as lowercase hex, drawn again in the (2^-64) case of
// all zeros, which the spec makes invalid.
std::string random_hex(std::size_t words) {
  std::string out(words * 16, '0');
  auto& gen = generator();
  do {
    for (std::size_t w = 0; w < words; ++w) {
      std::uint64_t v = gen();
      for (std::size_t i = 16; i-- > 0;) {
        out[w * 16 + i] = kHex[v & 0xF];
        v >>= 4;
      }
    }
  } while (all_zeros(out));
  return out;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// One list-member of tracestate: "key=value" with the spec's characters
// (key: lowercase letters, digits, _ - * / and one @; value: visible ASCII
// but ',' and '=', spaces inside only), or empty.
bool tracestate_member(std::string_view m) {
  m = trim_ows(m);
  if (m.empty()) return true;
  const std::size_t eq = m.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq > 256) return false;
  const std::string_view key = m.substr(0, eq);
  const std::string_view value = m.substr(eq + 1);
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '*' ||
                    c == '/' || c == '@';
    if (!ok) return false;
  }
  if (value.empty() || value.size() > 256 || value.back() == ' ') return false;
  for (char c : value) {
    if (c < 0x20 || c > 0x7E || c == ',' || c == '=') return false;
  }
  return true;
}

}  // namespace

std::optional<TraceParent> parse_traceparent(std::string_view v) {
  // version "-" trace-id "-" parent-id "-" trace-flags, each field fixed size.
  if (v.size() < kVersion00Size) return std::nullopt;
  const std::string_view version = v.substr(0, 2);
  if (!lower_hex(version) || version == "ff" || v[2] != '-') return std::nullopt;
  if (version == "00") {
    if (v.size() != kVersion00Size) return std::nullopt;
  } else if (v.size() > kVersion00Size && v[kVersion00Size] != '-') {
    // A later version may add fields, each after a '-'.
    return std::nullopt;
  }
  const std::string_view trace_id = v.substr(3, 32);
  const std::string_view parent_id = v.substr(36, 16);
  const std::string_view flags = v.substr(53, 2);
  if (v[35] != '-' || v[52] != '-') return std::nullopt;
  if (!lower_hex(trace_id) || !lower_hex(parent_id) || !lower_hex(flags)) return std::nullopt;
  if (all_zeros(trace_id) || all_zeros(parent_id)) return std::nullopt;
  TraceParent out;
  out.trace_id = trace_id;
  out.parent_id = parent_id;
  out.flags = static_cast<std::uint8_t>(nibble(flags[0]) * 16 + nibble(flags[1]));
  // Of a later version's flags only the sampled bit has a meaning we know.
  if (version != "00") out.flags &= kSampled;
  return out;
}

std::string format_traceparent(std::string_view trace_id, std::string_view span_id, std::uint8_t flags) {
  std::string out;
  out.reserve(kVersion00Size);
  out.append("00-").append(trace_id).append("-").append(span_id).append("-");
  out.push_back(kHex[flags >> 4]);
  out.push_back(kHex[flags & 0xF]);
  return out;
}

bool forwardable_tracestate(std::string_view value) {
  if (value.size() > kMaxTracestate) return false;
  std::size_t members = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = value.find(',', start);
    const std::string_view member =
        value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!tracestate_member(member)) return false;
    if (!trim_ows(member).empty() && ++members > 32) return false;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

std::string new_trace_id() {
  return random_hex(2);
}

std::string new_span_id() {
  return random_hex(1);
}

RequestTrace start_request_trace(std::optional<std::string_view> traceparent, std::string_view tracestate) {
  RequestTrace t;
  t.span_id = new_span_id();
  std::optional<TraceParent> parent;
  if (traceparent) parent = parse_traceparent(*traceparent);
  if (!parent) {
    // No trace, or one that cannot be read: start a new one. Its tracestate
    // belongs to the discarded trace and is dropped with it.
    t.trace_id = new_trace_id();
    return t;
  }
  t.trace_id = std::move(parent->trace_id);
  t.parent_id = std::move(parent->parent_id);
  t.flags = parent->flags;
  const std::string_view state = trim_ows(tracestate);
  if (!state.empty() && forwardable_tracestate(state)) t.tracestate = state;
  return t;
}

}  // namespace modelgw::trace
