// fake_proxy: a test-only HTTP forward proxy (--mode forward) and TLS
// terminator (--mode tls) on 127.0.0.1, so the gateway's integration tests
// can check that it honours HTTPS_PROXY/HTTP_PROXY and verifies upstream
// certificates. See README.md and usageText() in options.cpp.
#include <Poco/Net/NetSSL.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "connection_server.h"
#include "forward_proxy.h"
#include "options.h"
#include "proxy_log.h"
#include "runtime.h"
#include "tls_front.h"

namespace {

using namespace std::chrono_literals;
constexpr int kListenBacklog = 128;
constexpr size_t kLogCapacity = 1000;
// Handlers see the stop within one poll slice (100 ms); past this, leave
// anyway so that "exit within a second" holds whatever a handler is doing.
constexpr auto kStopGrace = 700ms;

// A proxy whose test crashed would otherwise live on, holding the test's
// inherited stderr open (and ctest waiting on it): when the parent dies,
// stop as if SIGTERM had come.
class ParentWatch {
 public:
  explicit ParentWatch(bool enabled) {
    if (enabled) thread_ = std::thread([this, parent = ::getppid()] { run(parent); });
  }
  ~ParentWatch() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  ParentWatch(const ParentWatch&) = delete;
  ParentWatch& operator=(const ParentWatch&) = delete;

 private:
  void run(pid_t parent) {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, 200ms, [this] { return done_; })) {
      if (::getppid() != parent) {
        ::kill(::getpid(), SIGTERM);
        return;
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

Poco::Net::ServerSocket listen(const fake_proxy::Options& opts, Poco::Net::Context::Ptr tls) {
  const Poco::Net::SocketAddress address("127.0.0.1", static_cast<Poco::UInt16>(opts.port));
  Poco::Net::ServerSocket socket;
  if (tls) socket = Poco::Net::SecureServerSocket(tls);
  socket.bind(address, /*reuseAddress=*/true, /*reusePort=*/false);
  socket.listen(kListenBacklog);
  return socket;
}

int run(const fake_proxy::Options& opts, const sigset_t& stopSignals) {
  fake_proxy::Runtime runtime;
  runtime.idleTimeout = std::chrono::seconds(opts.idleTimeoutSeconds);
  fake_proxy::ProxyLog log(kLogCapacity);
  const fake_proxy::ForwardConfig forwardConfig{opts.requireAuth};

  Poco::Net::Context::Ptr tls;
  fake_proxy::ConnectionServer::Handler handler;
  if (opts.mode == fake_proxy::Mode::Tls) {
    tls = fake_proxy::makeServerContext(opts.certFile, opts.keyFile);
    handler = [&runtime, port = opts.forwardTo](Poco::Net::StreamSocket s) {
      fake_proxy::serveTlsConnection(std::move(s), runtime, port);
    };
  } else {
    handler = [&](Poco::Net::StreamSocket s) {
      fake_proxy::serveForwardConnection(std::move(s), runtime, log, forwardConfig);
    };
  }

  Poco::Net::ServerSocket socket = listen(opts, tls);
  const int port = socket.address().port();
  fake_proxy::ConnectionServer server(socket, runtime, opts.maxConnections, handler);
  server.start();

  ParentWatch parentWatch(opts.exitWithParent);

  std::cout << "LISTENING " << port << std::endl;  // endl: the parent waits for this line

  int received = 0;
  sigwait(&stopSignals, &received);
  if (!server.stop(kStopGrace)) {
    // Some handler is stuck where no shutdown reaches it; do not wait.
    std::fflush(stdout);
    _exit(0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string error;
  const auto opts = fake_proxy::parseOptions(argc, argv, error);
  if (!opts) {
    if (!error.empty()) std::cerr << "fake_proxy: " << error << "\n";
    std::cerr << fake_proxy::usageText();
    return error.empty() ? 0 : 2;
  }

  // Block the stop signals before any thread starts, so every thread
  // inherits the mask and main alone takes them, through sigwait().
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  // A client hanging up must fail the write, not kill the proxy.
  std::signal(SIGPIPE, SIG_IGN);

  const bool tls = opts->mode == fake_proxy::Mode::Tls;
  if (tls) Poco::Net::initializeSSL();
  int code = 1;
  try {
    code = run(*opts, stopSignals);
  } catch (const Poco::Exception& e) {
    std::cerr << "fake_proxy: " << e.displayText() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fake_proxy: " << e.what() << "\n";
  }
  if (tls) Poco::Net::uninitializeSSL();
  return code;
}
