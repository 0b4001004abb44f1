#include "catalog/catalog_prices.h"

namespace modelgw::catalog {
namespace {

// The price dataset's vendor for a provider plugin.
std::string_view price_vendor(std::string_view plugin) {
  if (plugin == "gemini") return "google";
  return plugin;  // openai, anthropic
}

}  // namespace

pricing::Prices prices_of(const config::CatalogEntry& entry, const config::ProviderConfig& provider) {
  if (entry.prices) return *entry.prices;
  if (auto found = pricing::builtin_prices(price_vendor(provider.plugin), entry.model)) return *found;
  throw config::ConfigError(
      "catalog." + entry.alias + ": no price for model '" + entry.model + "' of provider '" + provider.name +
      "' in the price dataset (@pydantic/genai-prices " + std::string(pricing::dataset_version()) +
      "); set prices: {input: USD, output: USD} per million tokens (0 for a self-hosted "
      "model)");
}

}  // namespace modelgw::catalog
