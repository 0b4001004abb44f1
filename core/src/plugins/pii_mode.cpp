#include "plugins/pii_mode.h"

#include "plugins/callback_guard.h"
#include "plugins/plugin_error.h"

#include <modelgw/sdk.hpp>

namespace modelgw::plugins {

PiiMode::PiiMode(std::shared_ptr<PluginLibrary> library, std::string name, const nlohmann::json& options)
    : library_(std::move(library)), name_(std::move(name)), hooks_(library_->hooks<mgw_pii_hooks>()) {
  TextCollector reason;
  const std::string json = options.is_object() ? options.dump() : "{}";
  const mgw_status st = hooks_.on_pii_new(library_->host(), mgw::str(json), &handle_, &reason.sink);
  if (!keep_new_handle(st, handle_, hooks_.on_pii_destroy)) {
    const std::string why = st == MGW_OK          ? "it returned OK without a handle"
                            : reason.text.empty() ? "no reason given"
                                                  : reason.text;
    throw PluginError("plugin " + library_->file().string() + ": PII mode '" + name_ +
                      "' failed to start: " + why);
  }
}

PiiMode::~PiiMode() {
  if (handle_ != nullptr) hooks_.on_pii_destroy(handle_);
}

PiiMode::Scope::Scope(const PiiMode& mode) : hooks_(mode.hooks_) {
  if (!keep_new_handle(hooks_.on_pii_scope_new(mode.handle_, &handle_), handle_,
                       hooks_.on_pii_scope_destroy)) {
    throw PluginError("PII mode '" + mode.name_ + "' could not open a request scope");
  }
}

PiiMode::Scope::~Scope() {
  if (handle_ != nullptr) hooks_.on_pii_scope_destroy(handle_);
}

}  // namespace modelgw::plugins
