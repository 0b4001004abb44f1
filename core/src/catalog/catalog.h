// Model aliases, resolved at start-up to the provider, connection pool and
// token counter that serve them. A tier alias resolves to an ordered list of
// concrete ones. A request's lookup is one map find.
#pragma once

#include "config/config.h"
#include "plugins/provider.h"
#include "upstream/upstream_pool.h"

#include <modelgw/pricing.h>
#include <modelgw/tokenizer.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::catalog {

// One concrete alias.
struct ModelRoute {
  config::CatalogEntry entry;
  plugins::Provider* provider = nullptr;
  upstream::UpstreamPool* upstream = nullptr;
  const tokenizer::Encoding* encoding = nullptr;  // null: the documented estimate
  std::set<std::string, std::less<>> supports;
  // Parameters the provider's plugin drops (parameter_support.h): removed and
  // named in X-Dropped-Params, never refused.
  std::set<std::string, std::less<>> plugin_drops;
  // Bounds the plugin declared for admitted numbers, e.g. temperature [0, 1].
  std::map<std::string, std::pair<double, double>, std::less<>> ranges;
  pricing::Prices prices;  // per million tokens, micro-units (the catalog's or the price dataset's)

  bool supports_parameter(std::string_view name) const { return supports.count(name) > 0; }
};

class Catalog {
 public:
  void add(ModelRoute route);
  // After every concrete alias was added.
  void add_tier(const std::string& alias, const std::vector<std::string>& route);

  // The concrete aliases that may serve `alias`, in the order to try them:
  // one for a concrete alias, the route for a tier; empty when unknown.
  const std::vector<const ModelRoute*>* resolve(std::string_view alias) const;

  // The OpenAI "list models" body (without request_id), built once.
  const std::string& models_json() const { return models_json_; }
  void seal(std::int64_t created_unix);

 private:
  std::map<std::string, ModelRoute, std::less<>> routes_;
  std::map<std::string, std::vector<const ModelRoute*>, std::less<>> resolved_;
  std::map<std::string, std::string, std::less<>> owners_;  // alias -> owned_by in /v1/models
  std::string models_json_;
};

}  // namespace modelgw::catalog
