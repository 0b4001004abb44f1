// The prices of a concrete catalog model: the catalog's own `prices`, else
// the built-in price dataset's for the provider's vendor and the model. A
// model priced by neither stops start-up (and check-config) naming it:
// nothing is served that cannot be costed.
#pragma once

#include "config/config.h"

#include <modelgw/pricing.h>

namespace modelgw::catalog {

// Throws config::ConfigError naming the alias when no price is known.
pricing::Prices prices_of(const config::CatalogEntry& entry, const config::ProviderConfig& provider);

}  // namespace modelgw::catalog
