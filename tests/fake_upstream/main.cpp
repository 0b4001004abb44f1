// fake_upstream: a fake LLM vendor on 127.0.0.1 speaking the OpenAI, Anthropic
// and Gemini wire formats and injecting faults, for the gateway's integration
// tests and benchmarks. See README.md.
//
//   fake_upstream [--port N] [--api-key KEY] [--threads N] [--log-size N]
//
// Prints "LISTENING <port>" on stdout once it accepts connections, and stops
// cleanly (exit 0) on SIGTERM or SIGINT.
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/ThreadPool.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include "request_log.h"
#include "router.h"
#include "server_context.h"
#include "shutdown.h"

namespace {

// One pool thread serves one connection at a time, and a benchmark holds 1000+
// SSE streams open at once, so the pool is large and each stack small.
constexpr int kDefaultMaxThreads = 2048;
constexpr int kMinThreads = 16;
constexpr int kThreadIdleSeconds = 60;
constexpr int kThreadStackBytes = 256 * 1024;
constexpr int kListenBacklog = 4096;
constexpr int kMaxQueuedConnections = 100'000;
constexpr int kMaxKeepAliveRequests = 1'000'000;
constexpr int kKeepAliveTimeoutSeconds = 60;
// After SIGTERM, give open handlers this long to notice before exiting anyway.
constexpr auto kShutdownGrace = std::chrono::seconds(5);

struct Options {
  int port = 0;
  std::string apiKey;
  int threads = kDefaultMaxThreads;
  int logSize = 100;
};

void usage() {
  std::cerr << "usage: fake_upstream [--port N] [--api-key KEY] [--threads N] [--log-size N]\n"
               "  --port N      TCP port on 127.0.0.1; 0 (default) picks a free one\n"
               "  --api-key K   require the key on API routes: 'Authorization: Bearer K' (OpenAI),\n"
               "                'x-api-key: K' (Anthropic), 'x-goog-api-key: K' (Gemini)\n"
               "  --threads N   max worker threads = max concurrent connections (default 2048)\n"
               "  --log-size N  requests kept for GET /_fake/requests (default 100, 0 = off)\n";
}

bool parseInt(std::string_view text, int lo, int hi, int& out) {
  int value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < lo || value > hi) return false;
  out = value;
  return true;
}

// Accepts "--name value" and "--name=value".
bool parseArgs(int argc, char** argv, Options& opts) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool haveValue = false;
    if (const auto eq = arg.find('='); eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      haveValue = true;
    }
    if (arg == "--help" || arg == "-h") return false;
    if (!haveValue) {
      if (i + 1 >= argc) {
        std::cerr << "fake_upstream: " << arg << " needs a value\n";
        return false;
      }
      value = argv[++i];
    }
    bool ok = true;
    if (arg == "--port") {
      ok = parseInt(value, 0, 65535, opts.port);
    } else if (arg == "--api-key") {
      opts.apiKey = value;
    } else if (arg == "--threads") {
      ok = parseInt(value, 1, 65536, opts.threads);
    } else if (arg == "--log-size") {
      ok = parseInt(value, 0, 1'000'000, opts.logSize);
    } else {
      std::cerr << "fake_upstream: unknown option " << arg << "\n";
      return false;
    }
    if (!ok) {
      std::cerr << "fake_upstream: bad value for " << arg << ": " << value << "\n";
      return false;
    }
  }
  return true;
}

// Each open stream is a socket on both ends; the default soft limit of 1024
// descriptors is too low for a 1000-stream benchmark.
void raiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (!parseArgs(argc, argv, opts)) {
    usage();
    return 2;
  }

  // Block the termination signals before any thread starts so every thread
  // inherits the mask and main alone receives them through sigwait().
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  // A client hanging up mid-stream must fail the write, not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
  raiseFileLimit();

  fake_upstream::RequestLog log(static_cast<size_t>(opts.logSize));
  const fake_upstream::ServerContext ctx{opts.apiKey.empty() ? std::string() : "Bearer " + opts.apiKey, log,
                                         opts.apiKey};

  try {
    Poco::ThreadPool pool("fake_upstream", std::min(kMinThreads, opts.threads), opts.threads,
                          kThreadIdleSeconds, kThreadStackBytes);
    Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(opts.threads);
    // POCO wakes one dispatcher thread on stop; the others notice after this.
    params->setThreadIdleTime(Poco::Timespan(0, 500 * 1000));
    params->setMaxQueued(kMaxQueuedConnections);
    params->setKeepAlive(true);
    params->setMaxKeepAliveRequests(kMaxKeepAliveRequests);
    params->setKeepAliveTimeout(Poco::Timespan(kKeepAliveTimeoutSeconds, 0));

    Poco::Net::ServerSocket socket;
    socket.bind(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(opts.port)),
                /*reuseAddress=*/true, /*reusePort=*/false);
    socket.listen(kListenBacklog);

    Poco::Net::HTTPServer server(new fake_upstream::Router(ctx), pool, socket, params);
    server.start();
    std::cout << "LISTENING " << socket.address().port() << std::endl;

    int received = 0;
    sigwait(&stopSignals, &received);

    // Wake sleeping handlers, then shut every open connection down so
    // streaming handlers fail their next write and return.
    fake_upstream::requestStop();
    server.stopAll(/*abortCurrent=*/true);
    // A handler blocked where neither the flag nor the shutdown reaches it
    // must not keep the process alive.
    std::thread([] {
      std::this_thread::sleep_for(kShutdownGrace);
      std::fflush(stdout);
      _exit(0);
    }).detach();
    pool.joinAll();
  } catch (const Poco::Exception& e) {
    std::cerr << "fake_upstream: " << e.displayText() << "\n";
    return 1;
  }
  return 0;
}
