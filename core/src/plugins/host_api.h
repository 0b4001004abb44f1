// The host table (mgw_host_api) one loaded plugin receives: logging attributed
// to that plugin, and clocks.
#pragma once

#include <modelgw/plugin.h>

#include <string>

namespace modelgw::plugins {

class HostApi {
 public:
  explicit HostApi(std::string plugin_name);
  HostApi(const HostApi&) = delete;
  HostApi& operator=(const HostApi&) = delete;

  const mgw_host_api* get() const { return &api_; }
  const std::string& plugin_name() const { return name_; }
  // Start-up only, before any other thread can log through this table.
  void set_plugin_name(std::string name) { name_ = std::move(name); }

 private:
  std::string name_;
  mgw_host_api api_{};
};

}  // namespace modelgw::plugins
