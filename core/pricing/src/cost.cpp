#include <modelgw/pricing.h>

#include <algorithm>
#include <limits>

namespace modelgw::pricing {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
// GCC's 128-bit integer: exact products of counts and prices, no overflow.
__extension__ typedef unsigned __int128 u128;

}  // namespace

std::int64_t cost_micros(const Prices& p, std::int64_t prompt, std::int64_t cached, std::int64_t completion,
                         std::int64_t written) {
  prompt = std::max<std::int64_t>(prompt, 0);
  written = std::clamp<std::int64_t>(written, 0, prompt);
  cached = std::clamp<std::int64_t>(cached, 0, prompt - written);
  completion = std::max<std::int64_t>(completion, 0);
  // Token counts and prices are each below 2^63: every product fits 126 bits
  // and their sum 128.
  const u128 sum =
      static_cast<u128>(prompt - cached - written) * static_cast<u128>(std::max<std::int64_t>(p.input, 0)) +
      static_cast<u128>(written) * static_cast<u128>(std::max<std::int64_t>(p.cache_write, 0)) +
      static_cast<u128>(cached) * static_cast<u128>(std::max<std::int64_t>(p.cached_input, 0)) +
      static_cast<u128>(completion) * static_cast<u128>(std::max<std::int64_t>(p.output, 0));
  const u128 micros = (sum + 999'999) / 1'000'000;
  return micros > static_cast<u128>(kMax) ? kMax : static_cast<std::int64_t>(micros);
}

std::int64_t affordable_output_tokens(const Prices& p, std::int64_t prompt, std::int64_t available) {
  const std::int64_t base = cost_micros(p, prompt, 0, 0);
  if (base > available) return -1;
  if (p.output <= 0) return kMax;
  // cost(n) = ceil((P + n * out) / 1e6) <= available  <=>  P + n * out <= available * 1e6.
  const u128 budget = static_cast<u128>(available) * 1'000'000;
  const u128 prompt_part = static_cast<u128>(std::max<std::int64_t>(prompt, 0)) *
                           static_cast<u128>(std::max<std::int64_t>(p.input, 0));
  if (prompt_part > budget) return -1;
  const u128 n = (budget - prompt_part) / static_cast<u128>(p.output);
  return n > static_cast<u128>(kMax) ? kMax : static_cast<std::int64_t>(n);
}

}  // namespace modelgw::pricing
