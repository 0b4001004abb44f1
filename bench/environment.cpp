#include "environment.h"

#include "http_connection.h"
#include "http_wire.h"
#include "mock_embeddings.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <thread>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// YAML double-quoted scalar (paths may hold anything).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Environment::Environment(const EnvironmentOptions& o) : temp_("modelgw-bench-") {
  temp_dir_string_ = temp_.path().string();
  if (o.keep_temp) temp_.keep();
  try {
    start_upstream(o);
    write_config(o);
    create_key(o);
    create_money_tenant(o);
    start_gateway(o);
  } catch (...) {
    stop();
    throw;
  }
}

Environment::~Environment() {
  stop();
}

std::string Environment::gateway_log_tail(std::size_t lines) const {
  return tail_file(temp_.path() / "modelgw.log", lines);
}

std::string Environment::upstream_log_tail(std::size_t lines) const {
  return tail_file(temp_.path() / "upstream.log", lines);
}

void Environment::start_upstream(const EnvironmentOptions& o) {
  std::vector<std::string> args;
  std::string exe;
  if (o.fake_upstream_bin.empty()) {
    exe = o.mock_upstream_bin;
    args = {"--port", "0", "--api-key", kUpstreamKey, "--threads", std::to_string(o.mock_threads)};
  } else {
    // One thread per open connection: room for every stream plus the load workers.
    const int threads = std::max(2048, o.max_streams + 2 * o.concurrency + 64);
    exe = o.fake_upstream_bin;
    args = {"--port",     "0", "--api-key", kUpstreamKey,
            "--log-size", "0", "--threads", std::to_string(threads)};
  }
  upstream_name_ = std::filesystem::path(exe).filename().string();
  upstream_ = std::make_unique<ChildProcess>(exe, args, (temp_.path() / "upstream.log").string(),
                                             /*pipe_stdout=*/true);
  const auto line = upstream_->read_line(10s);
  const std::string prefix = "LISTENING ";
  if (!line || line->rfind(prefix, 0) != 0) {
    throw std::runtime_error(upstream_name_ + " did not print 'LISTENING <port>' within 10 s (got '" +
                             line.value_or("") + "'); its log:\n" + upstream_log_tail(20));
  }
  upstream_port_ = static_cast<std::uint16_t>(std::stoi(line->substr(prefix.size())));
  HttpConnection conn(upstream_port_, 2000);
  const int status = conn.exchange(build_request("GET", "/_fake/health", "", ""));
  if (status != 200)
    throw std::runtime_error(upstream_name_ + " GET /_fake/health answered " + std::to_string(status));
}

void Environment::write_config(const EnvironmentOptions& o) {
  gateway_port_ = pick_free_port();
  config_path_ = (temp_.path() / "modelgw.yaml").string();
  // Room for every stream or attacker connection of the scenarios at once.
  const int max_connections = std::max(30000, o.max_streams + o.concurrency + 256);
  std::ofstream f(config_path_);
  f << "server:\n"
    << "  listen: \"127.0.0.1:" << gateway_port_ << "\"\n"
    << (o.default_caps ? std::string() : "  max_connections: " + std::to_string(max_connections) + "\n")
    << "  shutdown_grace_ms: 3000\n"
    << "storage:\n"
    << "  plugin: sqlite\n"
    << "  options: { path: " << quoted((temp_.path() / "modelgw.db").string()) << " }\n"
    << "usage: { journal_path: " << quoted((temp_.path() / "usage.journal").string()) << " }\n"
    << "plugins: { dir: " << quoted(o.plugin_dir)
    << " }\n"
    // access_log only when off, so the bench also drives builds older than the key.
    << "logging: { level: warn" << (o.access_log ? "" : ", access_log: false") << " }\n"
    << "pii: { default_mode: " << o.pii_mode << " }\n"
    << "providers:\n";
  // As many upstream connections as client ones: each open stream holds one.
  const std::string mock =
      "base_url: \"http://127.0.0.1:" + std::to_string(upstream_port_) + "/v1\", api_key: \"" + kUpstreamKey +
      "\", timeout_ms: 600000" +
      (o.default_caps ? std::string() : ", max_connections: " + std::to_string(max_connections));
  const std::string upstream = "plugin: openai, " + mock;
  f << "  " << kProvider << ": { " << upstream
    << " }\n"
    // The same mock, sent POST /v1/responses as it is (the Responses API natively).
    << "  " << kNativeProvider << ": { " << upstream
    << ", native_operations: [responses] }\n"
    // And as Anthropic (x-api-key; POST /v1/messages natively, the plugin's default).
    << "  " << kAnthropicProvider << ": { plugin: anthropic, " << mock << " }\n"
    << "catalog:\n"
    // Prices given (the dataset's of the day), so the money path charges real money.
    << "  " << kModelAlias << ": { provider: " << kProvider
    << ", model: \"gpt-4o-mini\", context_window: 128000, prices: " << kPrices << " }\n"
    << "  " << kStreamAlias << ": { provider: " << kProvider << ", model: " << quoted(o.stream_model)
    << ", prices: " << kPrices << " }\n"
    << "  " << kSseAlias << ": { provider: " << kProvider << ", model: " << quoted(o.sse_stream_model)
    << ", prices: " << kPrices << " }\n"
    << "  " << kNativeAlias << ": { provider: " << kNativeProvider
    << ", model: \"gpt-4o-mini\", context_window: 128000, prices: " << kPrices << " }\n"
    << "  " << kNativeSseAlias << ": { provider: " << kNativeProvider
    << ", model: " << quoted(o.sse_stream_model) << ", prices: " << kPrices << " }\n"
    << "  " << kAnthropicAlias << ": { provider: " << kAnthropicProvider
    << ", model: " << quoted(kAnthropicModel) << ", context_window: 200000, prices: " << kAnthropicPrices
    << " }\n"
    // The mock's one answer has this many vectors of this length.
    << "  " << kEmbeddingAlias << ": { provider: " << kProvider
    << ", model: " << quoted(mock::kEmbeddingModel)
    << ", kind: embedding, dimensions: " << mock::kEmbeddingDimensions << ", prices: " << kEmbeddingPrices
    << " }\n";
  if (!f) throw std::runtime_error("cannot write " + config_path_);
}

std::string Environment::cli(const EnvironmentOptions& o, std::vector<std::string> args) {
  std::string what = "modelgw";
  for (const auto& a : args) what += " " + a;
  args.push_back("--config");
  args.push_back(config_path_);
  auto r = run_command(o.modelgw_bin, args, 30s);
  if (r.exit_code != 0) {
    throw std::runtime_error(what + " failed (exit " + std::to_string(r.exit_code) + "): " + trim(r.err));
  }
  return r.out;
}

void Environment::create_key(const EnvironmentOptions& o) {
  cli(o, {"tenants", "create", kTenant});
  gateway_key_ = trim(cli(o, {"keys", "create", "--tenant", kTenant}));
  if (gateway_key_.empty() || gateway_key_.find_first_of(" \n") != std::string::npos)
    throw std::runtime_error("modelgw keys create printed no key: '" + gateway_key_ + "'");
}

void Environment::create_money_tenant(const EnvironmentOptions& o) {
  cli(o, {"tenants", "create", kMoneyTenant});
  cli(o, {"budgets", "create", "--tenant", kMoneyTenant, "--window", "month", "--limit", kMoneyLimitUsd});
  cli(o, {"budgets", "create", "--tenant", kMoneyTenant, "--window", "day", "--limit", kMoneyLimitUsd,
          "--feature", kMoneyFeature});
  cli(o, {"credits", "top-up", "--tenant", kMoneyTenant, "--amount", kMoneyLimitUsd});
  const std::string rpm = std::to_string(kMoneyRequestsPerMinute);
  const std::string tpm = std::to_string(kMoneyTokensPerMinute);
  cli(o,
      {"tenants", "settings", kMoneyTenant, "--set",
       R"({"rate_limits": {"tenant_requests_per_minute": )" + rpm + R"(, "tenant_tokens_per_minute": )" +
           tpm + R"(, "key_requests_per_minute": )" + rpm + R"(, "key_tokens_per_minute": )" + tpm + "}}"});
  money_key_ = trim(cli(o, {"keys", "create", "--tenant", kMoneyTenant}));
  if (money_key_.empty() || money_key_.find_first_of(" \n") != std::string::npos)
    throw std::runtime_error("modelgw keys create printed no key: '" + money_key_ + "'");
}

std::string Environment::money_headers() {
  return std::string("X-Feature: ") + kMoneyFeature + "\r\n";
}

void Environment::start_gateway(const EnvironmentOptions& o) {
  gateway_ = std::make_unique<ChildProcess>(o.modelgw_bin,
                                            std::vector<std::string>{"serve", "--config", config_path_},
                                            (temp_.path() / "modelgw.log").string(), /*pipe_stdout=*/false);
  const std::string health = build_request("GET", "/healthz", "", "");
  const auto deadline = Clock::now() + 20s;
  std::string last = "no answer";
  while (Clock::now() < deadline) {
    if (!gateway_->running()) {
      throw std::runtime_error("modelgw serve exited during start-up (" + gateway_->stop(0ms) +
                               "); its log:\n" + gateway_log_tail(20));
    }
    try {
      HttpConnection conn(gateway_port_, 1000);
      const int status = conn.exchange(health);
      if (status == 200) return;
      last = "HTTP " + std::to_string(status);
    } catch (const HttpError& e) {
      last = e.what();
    }
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("modelgw did not answer GET /healthz with 200 within 20 s (last: " + last +
                           "); its log:\n" + gateway_log_tail(20));
}

std::string Environment::gateway_exit() {
  if (!gateway_ || gateway_->running()) return "";
  return gateway_->stop(std::chrono::milliseconds(0));  // already exited: its status
}

std::string Environment::stop() {
  std::string out;
  if (gateway_) out += "modelgw: " + gateway_->stop(10s);
  if (upstream_) out += std::string(out.empty() ? "" : ", ") + upstream_name_ + ": " + upstream_->stop(10s);
  gateway_.reset();
  upstream_.reset();
  return out;
}

}  // namespace bench
