// Runs the fake_proxy binary for a test: starts it, waits (bounded) for its
// "LISTENING <port>" line, reads its request log, and always stops and reaps
// it. Link the CMake target `fake_proxy_testing`.
#pragma once

#include <Poco/Pipe.h>
#include <Poco/Process.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fake_proxy {

// The fake_proxy executable this library was built with.
std::string fake_proxy_binary();

// One entry of GET /_proxy/log.
struct ProxyLogEntry {
  std::string method;               // "CONNECT", "POST", ...
  std::string target;               // "127.0.0.1:8443" or "http://127.0.0.1:8080/v1/chat/completions"
  std::optional<std::string> auth;  // Basic user name the client sent, if any
  int status = 0;                   // status the client got (the origin's or the proxy's own)
};

class FakeProxyProcess {
 public:
  // Starts `binary` with `args` (e.g. {"--mode", "forward"}) and waits up to
  // 10 s for its port. Throws std::runtime_error if it does not come.
  explicit FakeProxyProcess(const std::vector<std::string>& args,
                            const std::string& binary = fake_proxy_binary());
  ~FakeProxyProcess();
  FakeProxyProcess(const FakeProxyProcess&) = delete;
  FakeProxyProcess& operator=(const FakeProxyProcess&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:<port>", e.g. for HTTPS_PROXY.
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // SIGTERM, up to 5 s for an exit, then SIGKILL. Returns the exit code, or
  // -1 if it had to be killed. Later calls return the same value.
  int stop();

  // Forward mode only: GET /_proxy/log and DELETE /_proxy/log. Throw
  // std::runtime_error when the proxy does not answer as expected.
  std::vector<ProxyLogEntry> log() const;
  void clear_log() const;

 private:
  int read_listening_port();

  Poco::Pipe out_;
  std::unique_ptr<Poco::ProcessHandle> handle_;
  int port_ = 0;
  int exit_code_ = -1;
};

}  // namespace fake_proxy
