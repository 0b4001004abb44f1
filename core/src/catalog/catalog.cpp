#include "catalog/catalog.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace modelgw::catalog {

void Catalog::add(ModelRoute route) {
  std::string alias = route.entry.alias;
  owners_[alias] = route.entry.provider;
  auto [it, _] = routes_.insert_or_assign(alias, std::move(route));
  resolved_[alias] = {&it->second};
}

void Catalog::add_tier(const std::string& alias, const std::vector<std::string>& route) {
  std::vector<const ModelRoute*> targets;
  for (const auto& name : route) {
    auto it = routes_.find(name);
    if (it == routes_.end()) throw std::logic_error("tier " + alias + " names unknown alias " + name);
    targets.push_back(&it->second);
  }
  owners_[alias] = "modelgw";
  resolved_[alias] = std::move(targets);
}

const std::vector<const ModelRoute*>* Catalog::resolve(std::string_view alias) const {
  auto it = resolved_.find(alias);
  return it == resolved_.end() ? nullptr : &it->second;
}

void Catalog::seal(std::int64_t created_unix) {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& [alias, owner] : owners_) {
    data.push_back({{"id", alias}, {"object", "model"}, {"created", created_unix}, {"owned_by", owner}});
  }
  models_json_ = nlohmann::json{{"object", "list"}, {"data", std::move(data)}}.dump();
}

}  // namespace modelgw::catalog
