// Builds a chat::RouteSet from a configuration: at start-up, and again on
// every reload. Throws (ConfigError, PluginError, std::runtime_error) with a
// one-line reason; nothing built is kept then.
#pragma once

#include "chat/route_set.h"
#include "config/config.h"
#include "pii/detector.h"
#include "plugins/plugin_library.h"
#include "upstream/proxy.h"

#include <functional>
#include <memory>

namespace modelgw::app {

struct RouteBuildContext {
  // Loads (once) the plugin library of `kind` named `name`.
  std::function<std::shared_ptr<plugins::PluginLibrary>(mgw_plugin_kind, const std::string&)> library;
  upstream::ProxyEnvironment proxy_env;
  const pii::Detector* pii_detector = nullptr;
  // The chat endpoint's dependencies on this set's members (catalog,
  // redactor, PII guard) and the configuration's (retry), beside what every
  // set shares (usage writer, stores, spend control).
  std::function<chat::ChatDeps(chat::RouteSet&, const config::Config&)> chat_deps;
};

std::shared_ptr<chat::RouteSet> build_route_set(const config::Config& config, const RouteBuildContext& ctx);

}  // namespace modelgw::app
