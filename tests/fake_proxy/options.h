// Command line of fake_proxy. See usageText() and README.md.
#pragma once

#include <optional>
#include <string>

namespace fake_proxy {

enum class Mode { Forward, Tls };

struct Options {
  Mode mode = Mode::Forward;
  int port = 0;                            // 0: any free port
  std::optional<std::string> requireAuth;  // forward: "user:pass"
  int forwardTo = 0;                       // tls: plain port on 127.0.0.1
  std::string certFile;                    // tls
  std::string keyFile;                     // tls
  int maxConnections = 256;
  int idleTimeoutSeconds = 60;
  bool exitWithParent = true;
};

// nullopt with `error` set when the command line is wrong (or help was asked
// for: then `error` is empty).
std::optional<Options> parseOptions(int argc, const char* const* argv, std::string& error);
std::string usageText();

}  // namespace fake_proxy
