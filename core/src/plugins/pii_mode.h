// One configured PII mode: its plugin instance (block, mask, flag, or a
// vendor's own) and the per-request scopes it hands out.
#pragma once

#include "plugins/plugin_library.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace modelgw::plugins {

class PiiMode {
 public:
  // Creates the plugin instance with the mode's options; throws PluginError
  // with the plugin's reason.
  PiiMode(std::shared_ptr<PluginLibrary> library, std::string name, const nlohmann::json& options);
  ~PiiMode();
  PiiMode(const PiiMode&) = delete;
  PiiMode& operator=(const PiiMode&) = delete;

  const std::string& name() const { return name_; }
  const mgw_pii_hooks& hooks() const { return hooks_; }

  // One request's scope, destroyed with this object.
  class Scope {
   public:
    Scope(const PiiMode& mode);  // throws PluginError when the plugin refuses
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    mgw_pii_scope* handle() const { return handle_; }

   private:
    const mgw_pii_hooks& hooks_;
    mgw_pii_scope* handle_ = nullptr;
  };

 private:
  std::shared_ptr<PluginLibrary> library_;
  std::string name_;
  const mgw_pii_hooks& hooks_;
  mgw_pii* handle_ = nullptr;
};

}  // namespace modelgw::plugins
