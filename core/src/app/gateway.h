// The running gateway: everything start-up builds from the configuration
// (plugins, storage, providers, catalog, writer, HTTP server), held together
// for the life of the process and torn down in reverse on shutdown.
#pragma once

#include "config/config.h"

#include <memory>

namespace modelgw::app {

class Gateway {
 public:
  // Loads plugins, opens storage and binds the listen address; throws
  // PluginError / ConfigError / std::runtime_error with a one-line reason.
  explicit Gateway(const config::Config& config);
  ~Gateway();

  // Serves until SIGTERM or SIGINT, then drains in-flight calls (up to
  // server.shutdown_grace_ms; see app/drain.h) and flushes usage records.
  // SIGHUP meanwhile reloads the configuration.
  void run_until_signal();

  std::uint16_t port() const;

 private:
  // SIGHUP: rebuild the routes from the configuration file (app/reload_plan.h).
  void reload();

  struct State;
  std::unique_ptr<State> state_;
};

// Blocks SIGTERM/SIGINT/SIGHUP/SIGPIPE in the calling thread (call first in main, so
// every thread inherits it and the signals are taken by sigwait instead).
void block_termination_signals();

}  // namespace modelgw::app
