#include "nginx_proxy.h"

#include "http_connection.h"
#include "http_wire.h"

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// nginx.conf strings are written double-quoted; paths under the temp dir hold
// no quote, but escape anyway.
std::string q(const std::filesystem::path& p) {
  std::string out = "\"";
  for (char c : p.string()) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

NginxProxy::NginxProxy(const NginxOptions& o) : o_(o) {
  std::filesystem::create_directories(o.dir / "logs");
  port_ = pick_free_port();
  const auto conf = o.dir / "nginx.conf";
  {
    std::ofstream f(conf);
    f << "# Written by gateway_bench: the nginx baseline (see bench/README.md).\n"
      << "daemon off;\n"
      << "master_process off;\n"
      << "worker_processes 1;\n"
      << "pid " << q(o.dir / "nginx.pid") << ";\n"
      << "error_log " << q(o.dir / "logs" / "error.log") << " warn;\n"
      << "events {\n  worker_connections " << o.worker_connections << ";\n  use epoll;\n}\n"
      << "http {\n"
      << "  access_log off;\n"
      << "  client_body_temp_path " << q(o.dir / "client_body") << ";\n"
      << "  proxy_temp_path " << q(o.dir / "proxy") << ";\n"
      << "  fastcgi_temp_path " << q(o.dir / "fastcgi") << ";\n"
      << "  uwsgi_temp_path " << q(o.dir / "uwsgi") << ";\n"
      << "  scgi_temp_path " << q(o.dir / "scgi") << ";\n"
      << "  keepalive_requests 1000000;\n"
      << "  keepalive_timeout 75s;\n"
      << "  upstream mock {\n"
      << "    server 127.0.0.1:" << o.upstream_port << ";\n"
      << "    keepalive " << o.upstream_keepalive << ";\n"
      << "    keepalive_requests 1000000;\n"
      << "    keepalive_timeout 60s;\n"
      << "  }\n"
      << "  server {\n"
      << "    listen 127.0.0.1:" << port_ << " backlog=4096;\n"
      << "    location / {\n"
      << "      proxy_pass http://mock;\n"
      << "      proxy_http_version 1.1;\n"
      << "      proxy_set_header Connection \"\";\n"
      << "      proxy_buffering off;\n"
      << "      proxy_request_buffering off;\n"
      << "      proxy_read_timeout 300s;\n"
      << "    }\n"
      << "  }\n"
      << "}\n";
    if (!f) throw std::runtime_error("cannot write " + conf.string());
  }
  const auto v = run_command(o.nginx_bin, {"-v"}, 10s);
  version_ = v.err.empty() ? v.out : v.err;
  while (!version_.empty() && (version_.back() == '\n' || version_.back() == '\r')) version_.pop_back();
  if (v.exit_code != 0) {
    throw std::runtime_error("cannot run " + o.nginx_bin +
                             " (install Debian's nginx-light: apt-get install nginx-light): " + version_);
  }
  // -e: the start-up error log, otherwise /var/log/nginx/error.log is opened
  // before the config is read.
  process_ =
      std::make_unique<ChildProcess>(o.nginx_bin,
                                     std::vector<std::string>{"-p", o.dir.string(), "-c", conf.string(), "-e",
                                                              (o.dir / "logs" / "startup.log").string()},
                                     (o.dir / "logs" / "stderr.log").string(), /*pipe_stdout=*/false);
  const std::string probe = build_request("GET", o.probe_path, "", "");
  const auto deadline = Clock::now() + 10s;
  std::string last = "no answer";
  while (Clock::now() < deadline) {
    if (!process_->running()) {
      throw std::runtime_error("nginx exited during start-up (" + process_->stop(0ms) + "):\n" +
                               tail_file(o.dir / "logs" / "stderr.log", 10) +
                               tail_file(o.dir / "logs" / "startup.log", 10) + error_log_tail(10));
    }
    try {
      HttpConnection conn(port_, 1000);
      const int status = conn.exchange(probe);
      if (status == 200) return;
      last = "HTTP " + std::to_string(status);
    } catch (const HttpError& e) {
      last = e.what();
    }
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("nginx did not answer GET " + o.probe_path +
                           " with 200 within 10 s (last: " + last + "):\n" + error_log_tail(10));
}

NginxProxy::~NginxProxy() {
  stop();
}

std::string NginxProxy::error_log_tail(std::size_t lines) const {
  return tail_file(o_.dir / "logs" / "error.log", lines);
}

std::string NginxProxy::stop() {
  if (!process_) return "";
  std::string out = process_->stop(10s);
  process_.reset();
  return out;
}

}  // namespace bench
