#include "app/route_builder.h"

#include "catalog/catalog_prices.h"
#include "catalog/parameter_support.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace modelgw::app {

std::shared_ptr<chat::RouteSet> build_route_set(const config::Config& config, const RouteBuildContext& ctx) {
  auto set = std::make_shared<chat::RouteSet>();
  chat::RouteSet& s = *set;
  for (const auto& pc : config.providers) {
    auto provider = std::make_unique<plugins::Provider>(ctx.library(MGW_KIND_PROVIDER, pc.plugin), pc);
    upstream::UpstreamUrl url;
    try {
      url = upstream::parse_upstream_url(pc.base_url);
    } catch (const std::invalid_argument& e) {
      throw config::ConfigError("providers." + pc.name + ".base_url: " + e.what());
    }
    upstream::PoolSettings po;
    po.max_connections = pc.max_connections;
    po.connect_timeout_ms = pc.connect_timeout_ms;
    po.ca_file = pc.ca_file;
    po.proxy = upstream::proxy_for(url, ctx.proxy_env);
    if (po.proxy) {
      spdlog::info("provider '{}': connecting through proxy {}:{}", pc.name, po.proxy->host, po.proxy->port);
    }
    s.pools[pc.name] = std::make_unique<upstream::UpstreamPool>(url, po);
    s.redactor.add_from_config(pc.plugin_config);
    s.providers.push_back(std::move(provider));
  }
  for (const auto& [alias, entry] : config.catalog) {
    if (entry.is_tier()) continue;
    catalog::ModelRoute route;
    route.entry = entry;
    for (auto& p : s.providers) {
      if (p->name() == entry.provider) route.provider = p.get();
    }
    if (entry.is_embedding() && route.provider != nullptr &&
        !route.provider->serves_natively(MGW_OPERATION_EMBEDDINGS)) {
      throw config::ConfigError(
          "catalog." + alias + ": an embedding model, but provider '" + entry.provider + "' (plugin " +
          route.provider->plugin_name() +
          ") does not serve embeddings (its plugin declares no 'embeddings' operation)");
    }
    route.upstream = s.pools.at(entry.provider).get();
    // Built here, before serving, so the first request does not pay for the ranks.
    route.encoding = entry.tokenizer == "estimate" ? nullptr : tokenizer::find_encoding(entry.tokenizer);
    if (route.provider != nullptr) {
      auto support = catalog::derive_parameter_support(entry, *route.provider);
      route.supports = std::move(support.supports);
      route.plugin_drops = std::move(support.plugin_drops);
      route.ranges = std::move(support.ranges);
    }
    for (const auto& pc : config.providers) {
      if (pc.name == entry.provider) route.prices = catalog::prices_of(entry, pc);
    }
    s.catalog.add(std::move(route));
  }
  for (const auto& [alias, entry] : config.catalog) {
    if (entry.is_tier()) s.catalog.add_tier(alias, entry.route);
  }
  s.catalog.seal(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  // PII: each mode is a plugin, configured by the mode's options.
  for (const auto& [mode, options] : config.pii.modes) {
    s.pii_modes[mode] = std::make_unique<plugins::PiiMode>(ctx.library(MGW_KIND_PII, mode), mode, options);
  }
  s.pii_guard = std::make_unique<pii::Guard>(*ctx.pii_detector, s.pii_modes);
  s.chat = std::make_unique<chat::ChatEndpoint>(ctx.chat_deps(s, config));
  return set;
}

}  // namespace modelgw::app
