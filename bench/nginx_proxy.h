// The baseline proxy: Debian's nginx (package nginx-light) as a plain reverse
// proxy in front of the mock upstream, one worker, upstream keep-alive,
// proxy_buffering off (so SSE events pass as they come). Its config, prefix
// and logs live in a folder of the bench temp dir; it runs in the foreground
// as a single process (daemon off, master_process off), so the pid sampled
// is the process doing the work and SIGTERM/SIGKILL end it cleanly.
#pragma once

#include "process.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace bench {

struct NginxOptions {
  std::string nginx_bin = "/usr/sbin/nginx";
  std::filesystem::path dir;  // created if missing; holds nginx.conf, logs, temp paths
  std::uint16_t upstream_port = 0;
  int worker_connections = 65536;  // client + upstream connections of the one worker (it inherits
                                   // the bench's RLIMIT_NOFILE)
  int upstream_keepalive = 128;  // idle upstream connections kept per worker (more than the load keeps busy)
  std::string probe_path = "/health";  // a GET the upstream answers 200 once nginx proxies
};

class NginxProxy {
 public:
  // Writes the config, starts nginx on a free loopback port and waits until it
  // answers a GET (proxied to the mock). Throws with the error log on failure.
  explicit NginxProxy(const NginxOptions& options);
  ~NginxProxy();

  std::uint16_t port() const { return port_; }
  pid_t pid() const { return process_ ? process_->pid() : -1; }
  std::string error_log_tail(std::size_t lines) const;
  std::string version() const { return version_; }
  std::string stop();

 private:
  NginxOptions o_;
  std::uint16_t port_ = 0;
  std::unique_ptr<ChildProcess> process_;
  std::string version_;
};

}  // namespace bench
