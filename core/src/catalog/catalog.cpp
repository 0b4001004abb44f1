#include "catalog/catalog.h"

#include <nlohmann/json.hpp>

namespace modelgw::catalog {

void Catalog::add(ModelRoute route) {
  std::string alias = route.entry.alias;
  routes_.insert_or_assign(std::move(alias), std::move(route));
}

const ModelRoute* Catalog::find(std::string_view alias) const {
  auto it = routes_.find(alias);
  return it == routes_.end() ? nullptr : &it->second;
}

void Catalog::seal(std::int64_t created_unix) {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& [alias, route] : routes_) {
    data.push_back(
        {{"id", alias}, {"object", "model"}, {"created", created_unix}, {"owned_by", route.entry.provider}});
  }
  models_json_ = nlohmann::json{{"object", "list"}, {"data", std::move(data)}}.dump();
}

}  // namespace modelgw::catalog
