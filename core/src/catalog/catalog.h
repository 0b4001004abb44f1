// Model aliases, resolved at start-up to the provider and connection pool
// that serve them; a request's lookup is one map find.
#pragma once

#include "config/config.h"
#include "plugins/provider.h"
#include "upstream/connection_pool.h"

#include <map>
#include <string>
#include <string_view>

namespace modelgw::catalog {

struct ModelRoute {
  config::CatalogEntry entry;
  plugins::Provider* provider = nullptr;
  upstream::ConnectionPool* pool = nullptr;
};

class Catalog {
 public:
  void add(ModelRoute route);
  const ModelRoute* find(std::string_view alias) const;

  // The OpenAI "list models" body (without request_id), built once.
  const std::string& models_json() const { return models_json_; }
  void seal(std::int64_t created_unix);

 private:
  std::map<std::string, ModelRoute, std::less<>> routes_;
  std::string models_json_;
};

}  // namespace modelgw::catalog
