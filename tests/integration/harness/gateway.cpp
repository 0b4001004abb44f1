#include "harness/gateway.h"

#include "harness/http_client.h"
#include "harness/temp_dir.h"

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace it {

using namespace std::chrono_literals;

std::vector<CatalogEntry> standard_catalog() {
  return {
      {"gpt-4o-mini", "openai", "gpt-4o-mini"},
      {"house-chat", "openai", "gpt-4o-mini"},  // an alias unlike its upstream model
      {"slow-stream", "openai", "gpt-4o-mini+chunk_delay_ms=300+words=3"},
      {"long-stream", "openai", "gpt-4o-mini+chunk_delay_ms=250+words=6"},
      {"rate-limited", "openai", "gpt-4o-mini+status=429+retry_after=7"},
      {"err-500", "openai", "gpt-4o-mini+status=500"},
      {"err-503", "openai", "gpt-4o-mini+status=503"},
      {"err-401", "openai", "gpt-4o-mini+status=401"},
      {"slow-first-byte", "openai", "gpt-4o-mini+delay_ms=3000"},
      {"late-answer", "openai", "gpt-4o-mini+delay_ms=2100"},  // answers 600 ms after the timeout
      {"cut-2", "openai", "gpt-4o-mini+cut_after=2"},
      {"split", "openai", "gpt-4o-mini+split"},
      {"html", "openai", "gpt-4o-mini+html"},
      {"garbage", "openai", "gpt-4o-mini+garbage"},
      {"error200", "openai", "gpt-4o-mini+error200"},
      {"quota", "openai", "gpt-4o-mini+quota"},
      {"context", "openai", "gpt-4o-mini+context"},
      {"no-usage", "openai", "gpt-4o-mini+no_usage"},
      {"unreachable", "dead", "gpt-4o-mini"},
  };
}

int free_port() {
  Poco::Net::ServerSocket socket;
  socket.bind(Poco::Net::SocketAddress("127.0.0.1", 0), /*reuseAddress=*/false, /*reusePort=*/false);
  const int port = socket.address().port();
  socket.close();
  return port;
}

Env gateway_env() {
  // A proxy set on the machine running the tests must not catch the
  // gateway's calls to the fake upstream; proxy tests set their own.
  return Env{{"FAKE_KEY", kProviderKey}, {"no_proxy", "*"}};
}

namespace {

std::string render_config(const GatewayOptions& o, const std::string& dir, int port, int dead_port) {
  const std::string db = o.db_path.empty() ? dir + "/modelgw.db" : o.db_path;
  std::ostringstream y;
  y << "server:\n"
    << "  listen: \"127.0.0.1:" << port << "\"\n"
    << "  max_body_bytes: " << o.max_body_bytes << "\n"
    << o.extra_server_yaml;
  if (!o.storage_yaml.empty()) {
    y << o.storage_yaml;
  } else {
    y << "storage:\n"
      << "  plugin: sqlite\n"
      << "  options:\n"
      << "    path: \"" << db << "\"\n";
    if (o.storage_busy_timeout_ms > 0) y << "    busy_timeout_ms: " << o.storage_busy_timeout_ms << "\n";
  }
  y << "plugins:\n"
    << "  dir: \"" << MODELGW_PLUGIN_DIR << "\"\n"
    << "auth:\n"
    << "  key_cache_ttl_ms: " << o.key_cache_ttl_ms << "\n"
    << o.extra_auth_yaml << "usage:\n"
    << (o.flush_interval_ms > 0 ? "  flush_interval_ms: " + std::to_string(o.flush_interval_ms) + "\n" : "")
    << "  journal_path: \"" << (o.journal_path.empty() ? dir + "/usage.journal" : o.journal_path) << "\"\n"
    << o.extra_usage_yaml << o.pii_yaml << "logging:\n"
    << "  level: info\n"
    << o.extra_logging_yaml << "retry:\n"
    << "  max_attempts: " << o.retry_max_attempts << "\n"
    << "  base_ms: " << o.retry_base_ms << "\n"
    << "  max_wait_ms: " << o.retry_max_wait_ms << "\n"
    << "  budget_ms: " << o.retry_budget_ms << "\n"
    << "providers:\n";
  const std::string fake = "http://127.0.0.1:" + std::to_string(o.upstream_port);
  auto provider = [&](const std::string& name, const std::string& plugin, const std::string& base_url) {
    y << "  " << name << ":\n"
      << "    plugin: " << plugin << "\n"
      << "    base_url: \"" << base_url << "\"\n"
      << "    api_key: \"${FAKE_KEY}\"\n"
      << "    first_byte_timeout_ms: " << o.timeout_ms << "\n"
      << "    timeout_ms: " << std::max(o.total_timeout_ms, o.timeout_ms) << "\n";
    if (o.max_connections > 0) y << "    max_connections: " << o.max_connections << "\n";
    y << o.extra_provider_yaml;
  };
  provider("openai", "openai", o.openai_base_url.empty() ? fake + "/v1" : o.openai_base_url);
  if (!o.openai_ca_file.empty()) y << "    ca_file: \"" << o.openai_ca_file << "\"\n";
  provider("anthropic", "anthropic", fake + "/v1");
  provider("gemini", "gemini", fake + "/v1beta");
  // The same fake through the openai plugin, served the Responses API
  // natively (plugin.h, "Native operations").
  provider("openai-native", "openai", fake + "/v1");
  y << "    native_operations: [responses]\n";
  provider("dead", "openai", "http://127.0.0.1:" + std::to_string(dead_port) + "/v1");
  y << "    connect_timeout_ms: 1000\n" << o.extra_providers_yaml << "catalog:\n";
  for (const auto& e : o.catalog) {
    y << "  " << e.alias << ": { provider: " << e.provider << ", model: \"" << e.model
      << "\", context_window: 128000, prices: { input: 0.15, output: 0.60, cached_input: 0.075 } }\n";
  }
  for (const auto& t : o.tiers) {
    y << "  " << t.alias << ": { route: [";
    for (std::size_t i = 0; i < t.route.size(); ++i) y << (i ? ", " : "") << t.route[i];
    y << "] }\n";
  }
  y << o.extra_catalog_yaml << o.extra_yaml;
  return y.str();
}

}  // namespace

Gateway::Gateway(GatewayOptions options) : options_(std::move(options)) {
  dir_ = make_temp_dir("modelgw-it");
  config_path_ = dir_ + "/modelgw.yaml";
  port_ = free_port();
  dead_port_ = free_port();
  write_config(render_config(options_, dir_, port_, dead_port_));
}

namespace {

// A gateway that crashed, leaked or tripped a sanitizer fails the suite that
// ran it, even when every request of the suite got its expected answer.
void report_problems(int exit_code, const std::string& log) {
  if (exit_code != 0) {
    ADD_FAILURE() << "modelgw serve exited with " << exit_code
                  << " after SIGTERM (-1: it had to be killed); stderr tail:\n"
                  << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  }
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"}) {
    if (const auto at = log.find(marker); at != std::string::npos) {
      ADD_FAILURE() << "modelgw serve reported '" << marker << "':\n" << log.substr(at, 4000);
    }
  }
}

}  // namespace

Gateway::~Gateway() {
  if (serve_) {
    const int code = serve_->stop(15s);  // SIGTERM, then SIGKILL after a bound; always reaped
    const std::string log = serve_->err();
    serve_.reset();
    report_problems(code, log);
  }
  if (std::getenv("MODELGW_IT_KEEP") != nullptr) {
    std::cerr << "[gateway] kept " << dir_ << "\n";
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void Gateway::write_config(const std::string& text) const {
  std::ofstream out(config_path_, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + config_path_);
}

std::string Gateway::config_text() const {
  std::ifstream in(config_path_, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult Gateway::cli(std::vector<std::string> args) const {
  args.push_back("--config");
  args.push_back(config_path_);
  return run_to_exit(MODELGW_BIN, args, gateway_env(), 30s);
}

void Gateway::create_tenant(const std::string& name) const {
  auto r = cli({"tenants", "create", name});
  if (r.exit_code != 0) {
    throw std::runtime_error("tenants create " + name + " exited " + std::to_string(r.exit_code) + ": " +
                             r.err);
  }
}

Gateway::Key Gateway::create_key(const std::string& tenant, const std::string& scopes) const {
  std::vector<std::string> args{"keys", "create", "--tenant", tenant};
  if (!scopes.empty()) {
    args.push_back("--scopes");
    args.push_back(scopes);
  }
  auto r = cli(args);
  if (r.exit_code != 0) {
    throw std::runtime_error("keys create exited " + std::to_string(r.exit_code) + ": " + r.err);
  }
  Key key;
  key.key = r.out.substr(0, r.out.find('\n'));
  // stderr: "key id N for tenant T, scopes: ..."
  const auto at = r.err.find("key id ");
  if (at == std::string::npos) throw std::runtime_error("keys create did not report the key id: " + r.err);
  key.id = std::stoll(r.err.substr(at + 7));
  return key;
}

Env Gateway::serve_env() const {
  Env env = gateway_env();
  for (const auto& [k, v] : options_.env) env[k] = v;
  return env;
}

int Gateway::pid() const {
  return serve_ ? serve_->pid() : 0;
}

void Gateway::start() {
  if (serve_) throw std::logic_error("gateway already started");
  // The port was free when chosen; if something took it since, choose again.
  for (int attempt = 1;; ++attempt) {
    serve_ = std::make_unique<ChildProcess>(
        MODELGW_BIN, std::vector<std::string>{"serve", "--config", config_path_}, serve_env(), log_path());
    const std::string ready = "modelgw listening on http://127.0.0.1:" + std::to_string(port_);
    if (serve_->stderr_drain().wait_for(ready, 30s)) break;
    const std::string log = serve_->err();
    serve_->stop(2s);
    serve_.reset();
    if (attempt < 3 && log.find("cannot listen on") != std::string::npos) {
      port_ = free_port();
      write_config(render_config(options_, dir_, port_, dead_port_));
      continue;
    }
    throw std::runtime_error("modelgw serve did not report '" + ready + "'; stderr:\n" + log);
  }
  for (int attempt = 0; attempt < 200; ++attempt) {
    try {
      if (http_get(port_, "/healthz").status == 200) return;
    } catch (const std::exception&) {
      // not accepting yet
    }
    if (serve_->try_wait()) break;
    std::this_thread::sleep_for(50ms);
  }
  const std::string log = serve_->err();
  serve_->stop(2s);
  throw std::runtime_error("modelgw /healthz never answered 200; stderr:\n" + log);
}

bool Gateway::running() {
  return serve_ && !serve_->try_wait();
}

void Gateway::send_signal(int sig) const {
  if (serve_) serve_->send_signal(sig);
}

std::optional<int> Gateway::wait_exit(std::chrono::milliseconds timeout) {
  if (!serve_) return std::nullopt;
  return serve_->wait_exit(timeout);
}

int Gateway::stop(std::chrono::milliseconds grace) {
  return serve_ ? serve_->stop(grace) : -1;
}

void Gateway::kill() {
  if (!serve_) return;
  serve_->send_signal(SIGKILL);
  (void)serve_->wait_exit(std::chrono::seconds(10));
  serve_.reset();
}

std::string Gateway::log() const {
  return serve_ ? serve_->err() : std::string();
}

bool Gateway::wait_log(const std::string& needle, std::chrono::milliseconds timeout) const {
  return serve_ && serve_->stderr_drain().wait_for(needle, timeout);
}

}  // namespace it
