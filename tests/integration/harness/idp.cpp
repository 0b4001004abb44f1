#include "harness/idp.h"

#include "harness/http_client.h"
#include "harness/temp_dir.h"

#include <Poco/Base64Encoder.h>
#include <Poco/URI.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace it {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// Node loads express and generates two keys on a first start: seconds, not ms.
constexpr auto kStartTimeout = 30s;
constexpr auto kRestartPortBusyFor = 3s;

// `node` from PATH; tests run wherever the scripts installed Node.js.
std::string find_node() {
  std::string node = find_on_path("node");
  if (node.empty()) {
    throw std::runtime_error(
        "`node` is not on PATH; scripts/lib/common.sh installs Node.js for the IdP tests");
  }
  return node;
}

std::string base64(const std::string& text) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << text;
  encoder.close();
  return out.str();
}

std::string form_field(const std::string& name, const std::string& value) {
  std::string encoded;
  Poco::URI::encode(value, "!#$&'()*+,/:;=?@[]", encoded);
  return name + "=" + encoded;
}

nlohmann::json call_json(int port, const HttpRequest& request, const char* what) {
  const HttpResponse r = http_call(port, request);
  nlohmann::json body = r.json();
  if (r.status != 200 || !body.is_object()) {
    throw std::runtime_error(std::string("IdP ") + what + " answered " + std::to_string(r.status) + ": " +
                             r.body);
  }
  return body;
}

// The port from "listening on PORT\n" on stdout, or 0 when the line never came.
int wait_listening(const ChildProcess& process) {
  const std::string marker = "listening on ";
  if (!process.stdout_drain().wait_for(marker, kStartTimeout)) return 0;
  // The line is one write; wait for its end so the number is complete.
  const auto deadline = Clock::now() + 2s;
  while (true) {
    const std::string out = process.out();
    const auto at = out.find(marker) + marker.size();
    if (out.find('\n', at) != std::string::npos) return std::atoi(out.c_str() + at);
    if (Clock::now() >= deadline) return 0;
    std::this_thread::sleep_for(10ms);
  }
}

}  // namespace

IdentityProvider::IdentityProvider(IdentityProviderOptions options) : options_(options) {
  dir_ = make_temp_dir("modelgw-idp");
  key_file_ = dir_ + "/idp-keys.json";
  try {
    start(0);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    throw;
  }
}

IdentityProvider::~IdentityProvider() {
  process_.reset();  // SIGTERM, then SIGKILL after a bound; always reaped
  if (std::getenv("MODELGW_IT_KEEP") != nullptr) {
    std::cerr << "[idp] kept " << dir_ << "\n";
    return;
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void IdentityProvider::start(int port) {
  const std::vector<std::string> args{IDP_SERVER_SCRIPT,
                                      "--port",
                                      std::to_string(port),
                                      "--keys",
                                      key_file_,
                                      "--jwks-max-age",
                                      std::to_string(options_.jwks_max_age_s)};
  // An inherited NODE_OPTIONS (a debugger, a loader) must not change the IdP.
  const Env env{{"NODE_OPTIONS", ""}};
  const auto busy_deadline = Clock::now() + kRestartPortBusyFor;
  while (true) {
    process_ = std::make_unique<ChildProcess>(find_node(), args, env);
    const int listening = wait_listening(*process_);
    if (listening > 0 && (port == 0 || listening == port)) {
      port_ = listening;
      return;
    }
    process_->stop(2s);
    const std::string err = process_->err();
    process_.reset();
    // A restart can race the old socket's release; the port is ours to retry.
    if (port != 0 && err.find("EADDRINUSE") != std::string::npos && Clock::now() < busy_deadline) {
      std::this_thread::sleep_for(100ms);
      continue;
    }
    throw std::runtime_error("the IdP (" + std::string(IDP_SERVER_SCRIPT) +
                             ") never printed 'listening on'; stderr:\n" + err);
  }
}

std::string IdentityProvider::issuer() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::string IdentityProvider::jwks_url() const {
  return issuer() + "/jwks";
}

std::string IdentityProvider::token(const std::string& client_id, const std::string& scope,
                                    const std::string& alg) const {
  HttpRequest request;
  request.path = "/token";
  request.json_content_type = false;
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                     {"Authorization", "Basic " + base64(client_id + ":" + client_id + "-secret")}};
  request.body = form_field("grant_type", "client_credentials") + "&" + form_field("scope", scope) + "&" +
                 form_field("audience", "modelgw") + "&" + form_field("alg", alg);
  const nlohmann::json body = call_json(port_, request, "POST /token");
  if (!body.contains("access_token") || !body["access_token"].is_string()) {
    throw std::runtime_error("IdP POST /token gave no access_token: " + body.dump());
  }
  return body["access_token"].get<std::string>();
}

std::string IdentityProvider::sign(const nlohmann::json& header, const nlohmann::json& claims) const {
  HttpRequest request;
  request.path = "/_test/sign";
  // `{}` as an argument arrives as null; the IdP wants an object.
  request.body = nlohmann::json{
      {"header", header.is_null() ? nlohmann::json::object() : header},
      {"claims",
       claims}}.dump();
  return call_json(port_, request, "POST /_test/sign").at("token").get<std::string>();
}

nlohmann::json IdentityProvider::valid_claims(const std::string& tenant, const std::string& scope) const {
  const std::int64_t now = std::time(nullptr);
  return {{"iss", issuer()}, {"aud", "modelgw"}, {"sub", tenant}, {"tenant", tenant},
          {"scope", scope},  {"iat", now},       {"nbf", now},    {"exp", now + 600}};
}

std::string IdentityProvider::kid(const std::string& alg) const {
  HttpRequest request;
  request.method = "GET";
  request.path = "/jwks";
  const nlohmann::json jwks = call_json(port_, request, "GET /jwks");
  for (const auto& key : jwks["keys"]) {
    if (key.value("alg", "") == alg) return key.value("kid", "");
  }
  throw std::runtime_error("the IdP publishes no key for " + alg);
}

int IdentityProvider::jwks_requests() const {
  HttpRequest request;
  request.method = "GET";
  request.path = "/_test/stats";
  return call_json(port_, request, "GET /_test/stats").at("jwks_requests").get<int>();
}

void IdentityProvider::stop() {
  if (process_) process_->stop(5s);
}

void IdentityProvider::restart() {
  stop();
  process_.reset();
  start(port_);
}

bool IdentityProvider::running() {
  return process_ && !process_->try_wait();
}

std::string IdentityProvider::log() const {
  return process_ ? process_->err() : std::string();
}

}  // namespace it
