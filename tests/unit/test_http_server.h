// A tiny POCO HTTP server on 127.0.0.1 (an ephemeral port) for the upstream
// tests: each test hands it the handler the case needs. Handlers must stay
// bounded: the ones that wait use sleep_unless_stopping(), which the
// destructor cuts short, and the destructor waits for every handler thread.
#pragma once

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/ThreadPool.h>

#include <csignal>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <thread>

namespace modelgw::testing {

// What every handler may look at: set when the server shuts down.
struct ServerState {
  std::atomic<bool> stopping{false};
  std::atomic<int> requests{0};
};

// Sleeps up to `ms`, in short steps, returning early (false) when the server stops.
inline bool sleep_unless_stopping(const ServerState& state, std::chrono::milliseconds ms) {
  const auto until = std::chrono::steady_clock::now() + ms;
  while (std::chrono::steady_clock::now() < until) {
    if (state.stopping.load()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return !state.stopping.load();
}

class TestHttpServer {
 public:
  // The request (its body already read into `body`), the response to send.
  using Handler = std::function<void(Poco::Net::HTTPServerRequest&, const std::string& body,
                                     Poco::Net::HTTPServerResponse&, const ServerState&)>;

  explicit TestHttpServer(Handler handler,
                          std::chrono::milliseconds keep_alive = std::chrono::milliseconds(2000))
      : state_(std::make_shared<ServerState>()), pool_(2, 16, 60) {
    // A client that hangs up mid-body must not kill the test binary.
    std::signal(SIGPIPE, SIG_IGN);
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
    port_ = socket.address().port();
    auto* params = new Poco::Net::HTTPServerParams;
    params->setKeepAlive(true);
    params->setKeepAliveTimeout(Poco::Timespan(keep_alive.count() * 1000));
    params->setMaxThreads(16);
    params->setMaxQueued(16);
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(std::move(handler), state_), pool_, socket,
                                                      params);
    server_->start();
  }

  ~TestHttpServer() {
    state_->stopping = true;
    server_->stopAll(/*abortCurrent=*/true);
    pool_.joinAll();
    server_.reset();
  }

  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return state_->requests.load(); }
  // TCP connections the server accepted so far.
  int connections() const { return server_->totalConnections(); }

 private:
  class Wrapper : public Poco::Net::HTTPRequestHandler {
   public:
    Wrapper(Handler handler, std::shared_ptr<ServerState> state)
        : handler_(std::move(handler)), state_(std::move(state)) {}
    void handleRequest(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) override {
      ++state_->requests;
      try {
        // Read the request body so the connection can be kept alive.
        std::string body;
        std::istream& in = request.stream();
        char buffer[4096];
        while (in.read(buffer, sizeof buffer) || in.gcount() > 0) body.append(buffer, in.gcount());
        handler_(request, body, response, *state_);
      } catch (...) {  // the client went away; nothing to answer
      }
    }

   private:
    Handler handler_;
    std::shared_ptr<ServerState> state_;
  };

  class Factory : public Poco::Net::HTTPRequestHandlerFactory {
   public:
    Factory(Handler handler, std::shared_ptr<ServerState> state)
        : handler_(std::move(handler)), state_(std::move(state)) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
      return new Wrapper(handler_, state_);
    }

   private:
    Handler handler_;
    std::shared_ptr<ServerState> state_;
  };

  std::shared_ptr<ServerState> state_;
  Poco::ThreadPool pool_;
  std::uint16_t port_ = 0;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

// Handlers the tests share.
inline void answer(Poco::Net::HTTPServerResponse& response, const std::string& body, int status = 200) {
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

// Sends the head and `total` bytes of body, one every `gap`, while the server runs.
inline void dribble(Poco::Net::HTTPServerResponse& response, const ServerState& state, int total,
                    std::chrono::milliseconds gap) {
  response.setContentType("text/plain");
  response.setContentLength(total);
  std::ostream& out = response.send();
  out.flush();
  for (int i = 0; i < total && out; ++i) {
    if (!sleep_unless_stopping(state, gap)) return;
    out << 'x';
    out.flush();
  }
}

}  // namespace modelgw::testing
