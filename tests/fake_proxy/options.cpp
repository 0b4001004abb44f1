#include "options.h"

#include <charconv>
#include <string_view>

namespace fake_proxy {
namespace {

bool parseInt(std::string_view text, int lo, int hi, int& out) {
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < lo || value > hi) return false;
  out = value;
  return true;
}

// Cross-option rules, once everything is read.
std::string validate(const Options& o, bool modeGiven) {
  if (!modeGiven) return "--mode is required";
  if (o.mode == Mode::Tls) {
    if (o.forwardTo == 0) return "--mode tls needs --forward-to PORT";
    if (o.certFile.empty() || o.keyFile.empty()) return "--mode tls needs --cert FILE and --key FILE";
    if (o.requireAuth) return "--require-auth is for --mode forward";
  } else if (o.forwardTo != 0 || !o.certFile.empty() || !o.keyFile.empty()) {
    return "--forward-to, --cert and --key are for --mode tls";
  }
  return {};
}

}  // namespace

std::string usageText() {
  return "usage: fake_proxy --mode forward [--port N] [--require-auth USER:PASS] [common options]\n"
         "       fake_proxy --mode tls --forward-to PORT --cert FILE --key FILE [--port N] [common options]\n"
         "  --mode forward       HTTP forward proxy (absolute-form requests and CONNECT) to "
         "127.0.0.1/localhost\n"
         "  --mode tls           TLS terminator relaying to 127.0.0.1:PORT in plain TCP\n"
         "  --port N             listening port on 127.0.0.1; 0 (default) picks a free one\n"
         "  --require-auth U:P   answer 407 unless 'Proxy-Authorization: Basic base64(U:P)' is sent\n"
         "  --forward-to PORT    tls: plain TCP port on 127.0.0.1 to relay to\n"
         "  --cert FILE          tls: server certificate (chain) in PEM\n"
         "  --key FILE           tls: its private key in PEM\n"
         "common options:\n"
         "  --max-connections N  open client connections at once (default 256); more are closed\n"
         "  --idle-timeout S     seconds a connection or tunnel may stay silent (default 60)\n"
         "  --stay-orphaned      keep running when the parent process dies (default: stop)\n"
         "Prints 'LISTENING <port>' when ready; exits 0 on SIGTERM or SIGINT.\n";
}

std::optional<Options> parseOptions(int argc, const char* const* argv, std::string& error) {
  Options o;
  bool modeGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      error.clear();
      return std::nullopt;
    }
    if (arg == "--stay-orphaned") {
      o.exitWithParent = false;
      continue;
    }
    std::string_view value;
    if (const auto eq = arg.find('='); eq != std::string_view::npos && arg.rfind("--", 0) == 0) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      error = std::string(arg) + " needs a value";
      return std::nullopt;
    }
    bool ok = true;
    if (arg == "--mode") {
      modeGiven = true;
      if (value == "forward") {
        o.mode = Mode::Forward;
      } else if (value == "tls") {
        o.mode = Mode::Tls;
      } else {
        ok = false;
      }
    } else if (arg == "--port") {
      ok = parseInt(value, 0, 65535, o.port);
    } else if (arg == "--require-auth") {
      ok = value.find(':') != std::string_view::npos;
      o.requireAuth = std::string(value);
    } else if (arg == "--forward-to") {
      ok = parseInt(value, 1, 65535, o.forwardTo);
    } else if (arg == "--cert") {
      o.certFile = value;
      ok = !value.empty();
    } else if (arg == "--key") {
      o.keyFile = value;
      ok = !value.empty();
    } else if (arg == "--max-connections") {
      ok = parseInt(value, 1, 10'000, o.maxConnections);
    } else if (arg == "--idle-timeout") {
      ok = parseInt(value, 1, 3600, o.idleTimeoutSeconds);
    } else {
      error = "unknown option " + std::string(arg);
      return std::nullopt;
    }
    if (!ok) {
      error = "bad value for " + std::string(arg) + ": '" + std::string(value) + "'";
      return std::nullopt;
    }
  }
  error = validate(o, modeGiven);
  if (!error.empty()) return std::nullopt;
  return o;
}

}  // namespace fake_proxy
