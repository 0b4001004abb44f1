#include "plugins/provider.h"

#include "plugins/callback_guard.h"
#include "plugins/plugin_error.h"

#include <modelgw/sdk.hpp>

#include <cstring>

#include <spdlog/spdlog.h>

namespace modelgw::plugins {

Provider::Provider(std::shared_ptr<PluginLibrary> library, const config::ProviderConfig& config)
    : library_(std::move(library)), config_(config), hooks_(library_->hooks<mgw_provider_hooks>()) {
  TextCollector reason;
  const std::string json = config_.plugin_config.dump();
  const mgw_status st = hooks_.on_provider_new(library_->host(), mgw::str(json), &handle_, &reason.sink);
  if (!keep_new_handle(st, handle_, hooks_.on_provider_destroy)) {
    const std::string why = st == MGW_OK          ? "it returned OK without a provider handle"
                            : reason.text.empty() ? "no reason given"
                                                  : reason.text;
    throw PluginError("plugin " + library_->file().string() + ": provider '" + config_.name +
                      "' failed to start: " + why);
  }
  try {
    read_parameters();
    read_operations();
  } catch (...) {
    hooks_.on_provider_destroy(handle_);
    handle_ = nullptr;
    throw;
  }
}

namespace {

// Takes the rows of on_provider_parameters, refusing what breaks mgw_param_spec.
struct ParamCollector {
  std::vector<ParamSpec> rows;
  std::string breach;
  CallbackGuard guard;
  mgw_param_sink sink{sizeof(mgw_param_sink), this, [](void* self, const mgw_param_spec* p) noexcept {
                        auto* c = static_cast<ParamCollector*>(self);
                        c->guard.run([&] { c->take(p); });
                      }};

  void take(const mgw_param_spec* p) {
    if (p == nullptr || p->struct_size < MGW_PARAM_SPEC_SIZE_1_4 || p->name == nullptr) {
      return refuse("declared a parameter smaller than ABI 1.4 defines, or without a name");
    }
    if (p->handling < MGW_PARAM_MAPPED || p->handling > MGW_PARAM_REFUSED) {
      return refuse("declared a parameter with an unknown handling " + std::to_string(p->handling));
    }
    const std::string name(p->name, ::strnlen(p->name, 65));
    if (name.empty() || name.size() > 64)
      return refuse("declared a parameter name that is empty or over 64 bytes");
    if (p->min != p->min || p->max != p->max) return refuse("declared a NaN range for '" + name + "'");
    rows.push_back(ParamSpec{name, p->handling, p->target == nullptr ? "" : p->target, p->min, p->max});
  }
  void refuse(std::string why) {
    breach = std::move(why);
    guard.fail();
  }
};

}  // namespace

void Provider::read_parameters() {
  if (hooks_.on_provider_parameters == nullptr) return;  // a plugin older than ABI 1.4
  ParamCollector got;
  const mgw_status st = hooks_.on_provider_parameters(handle_, &got.sink);
  const std::string where = "plugin " + library_->file().string() + ": provider '" + config_.name + "' ";
  if (got.guard.failed()) {
    throw PluginError(where +
                      (got.breach.empty() ? "declared parameters the gateway could not take" : got.breach));
  }
  if (st != MGW_OK) {
    throw PluginError(where + "failed to declare its parameters (status " + std::to_string(st) + ")");
  }
  parameters_ = std::move(got.rows);
}

Provider::~Provider() {
  if (handle_ != nullptr) hooks_.on_provider_destroy(handle_);
}

namespace {

// Takes the names of on_provider_operations.
struct OperationCollector {
  std::vector<std::string> names;
  CallbackGuard guard;
  mgw_text_sink sink{this, [](void* self, mgw_str name) noexcept {
                       auto* c = static_cast<OperationCollector*>(self);
                       if (name.ptr == nullptr && name.len != 0) return c->guard.fail();
                       c->guard.run([&] { c->names.emplace_back(mgw::view(name).substr(0, 64)); });
                     }};
};

}  // namespace

void Provider::read_operations() {
  if (hooks_.on_provider_operations == nullptr) return;  // a plugin older than ABI 1.10: chat only
  OperationCollector got;
  const mgw_status st = hooks_.on_provider_operations(handle_, &got.sink);
  const std::string where = "plugin " + library_->file().string() + ": provider '" + config_.name + "' ";
  if (got.guard.failed()) throw PluginError(where + "declared operations the gateway could not take");
  if (st != MGW_OK) {
    throw PluginError(where + "failed to declare its operations (status " + std::to_string(st) + ")");
  }
  for (const auto& name : got.names) {
    if (name == MGW_OPERATION_RESPONSES || name == MGW_OPERATION_MESSAGES ||
        name == MGW_OPERATION_EMBEDDINGS || name == MGW_OPERATION_COUNT_TOKENS) {
      if (!serves_natively(name)) native_.push_back(name);
    } else if (name != MGW_OPERATION_CHAT) {
      // Printable bytes only: the name comes from the plugin.
      std::string shown;
      for (const char c : name) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
      spdlog::warn(
          "provider '{}': the plugin declares the operation '{}', which this gateway does not "
          "serve natively; ignored",
          config_.name, shown);
    }
  }
}

bool Provider::serves_natively(std::string_view operation) const {
  for (const auto& name : native_) {
    if (name == operation) return true;
  }
  return false;
}

}  // namespace modelgw::plugins
