#include "faults.h"

#include <charconv>

namespace fake_upstream {
namespace {

// Upper bounds keep a typo (delay_ms=9999999999) from wedging a test run.
constexpr int kMaxDelayMs = 600'000;
constexpr int kMaxWords = 1'000'000;
constexpr int kMaxStreamBytes = 1 << 30;

bool parseInt(std::string_view text, int lo, int hi, int& out) {
  int value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < lo || value > hi) return false;
  out = value;
  return true;
}

struct IntDirective {
  std::string_view name;
  int Faults::*field;
  int lo;
  int hi;
};

struct FlagDirective {
  std::string_view name;
  bool Faults::*field;
};

constexpr IntDirective kIntDirectives[] = {
    {"status", &Faults::status, 400, 599},
    {"retry_after", &Faults::retryAfter, 0, 86'400},
    {"delay_ms", &Faults::delayMs, 0, kMaxDelayMs},
    {"cut_after", &Faults::cutAfter, 0, kMaxWords},
    {"chunk_delay_ms", &Faults::chunkDelayMs, 0, kMaxDelayMs},
    {"words", &Faults::words, 0, kMaxWords},
    {"flood_bytes", &Faults::floodBytes, 0, kMaxStreamBytes},
    {"long_line", &Faults::longLine, 0, kMaxStreamBytes},
};

constexpr FlagDirective kFlagDirectives[] = {
    {"quota", &Faults::quota},
    {"context", &Faults::context},
    {"html", &Faults::html},
    {"garbage", &Faults::garbage},
    {"error200", &Faults::error200},
    {"split", &Faults::split},
    {"no_usage", &Faults::noUsage},
    {"byte_tokens", &Faults::byteTokens},
    {"comments", &Faults::comments},
    {"interim_forever", &Faults::interimForever},
    {"both_lengths", &Faults::bothLengths},
};

// Applies one "name" or "name=value" directive; returns an error text or "".
std::string applyDirective(std::string_view directive, Faults& faults) {
  if (directive.empty()) return "Empty fault directive (two '+' in a row or a trailing '+').";
  const auto eq = directive.find('=');
  const auto name = directive.substr(0, eq);
  const bool hasValue = eq != std::string_view::npos;
  for (const auto& d : kIntDirectives) {
    if (d.name != name) continue;
    if (!hasValue || !parseInt(directive.substr(eq + 1), d.lo, d.hi, faults.*d.field)) {
      return "Invalid fault directive '" + std::string(directive) + "': expected " + std::string(name) +
             "=N with N in " + std::to_string(d.lo) + ".." + std::to_string(d.hi) + ".";
    }
    return {};
  }
  for (const auto& d : kFlagDirectives) {
    if (d.name != name) continue;
    if (hasValue) return "Fault directive '" + std::string(name) + "' takes no value.";
    faults.*d.field = true;
    return {};
  }
  return "Unknown fault directive '" + std::string(name) + "'.";
}

}  // namespace

ParsedModel parseModel(std::string_view model) {
  ParsedModel parsed;
  auto plus = model.find('+');
  parsed.model = model.substr(0, plus);
  while (plus != std::string_view::npos) {
    const auto start = plus + 1;
    plus = model.find('+', start);
    const auto directive =
        model.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start);
    parsed.error = applyDirective(directive, parsed.faults);
    if (!parsed.error.empty()) break;
  }
  return parsed;
}

}  // namespace fake_upstream
