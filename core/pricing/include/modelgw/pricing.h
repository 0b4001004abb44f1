// Model prices and the cost of a request, in integer micro-units of USD
// (1 USD = 1'000'000): never floating point. The built-in prices come from
// the npm price dataset @pydantic/genai-prices, converted at build time
// (tools/prices_convert.mjs); the catalog may override them per model.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace modelgw::pricing {

// Micro-USD per million tokens: $3.00 per million tokens is 3'000'000.
struct Prices {
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t cached_input = 0;  // prompt tokens the vendor read from its cache
  std::int64_t cache_write = 0;   // prompt tokens the vendor wrote into its cache (Anthropic: 1.25x input)
};

// The dataset's prices for `model` of `vendor` ("openai", "anthropic",
// "google"): its match rules, first match wins, as the package decides.
// Tiered prices count at their base tier. nullopt when the dataset has none.
std::optional<Prices> builtin_prices(std::string_view vendor, std::string_view model);

// The npm package version the prices came from, e.g. "0.1.8".
std::string_view dataset_version();

// ceil((uncached prompt * input + cached * cached_input + written * cache_write
//       + completion * output) / 1e6),
// saturating at INT64_MAX; negative counts count as 0, cached and written
// together at most prompt (written first).
std::int64_t cost_micros(const Prices& prices, std::int64_t prompt_tokens, std::int64_t cached_prompt_tokens,
                         std::int64_t completion_tokens, std::int64_t cache_write_tokens = 0);

// The most output tokens n with cost_micros(prices, prompt, 0, n) <= available;
// -1 when not even the prompt fits; INT64_MAX when output is free.
std::int64_t affordable_output_tokens(const Prices& prices, std::int64_t prompt_tokens,
                                      std::int64_t available_micros);

}  // namespace modelgw::pricing
