#include "http/server.h"

#include "http/api_error.h"
#include "http/request_id.h"

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Timestamp.h>

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>

namespace modelgw::http {

class Connection;

struct Server::Connections {
  std::mutex mutex;
  std::set<Connection*> live;
  bool stopping = false;
};

namespace {

// What to tell a client whose request head POCO refused. POCO's own text is
// not echoed: some of its messages quote the offending bytes, which may be a
// piece of a credential.
std::string malformed_message(const Poco::Net::MessageException& e) {
  const std::string& what = e.message();
  if (what.rfind("Field value too long", 0) == 0) {
    return "a request header value is longer than 8192 bytes, the most the gateway reads (a bearer token or "
           "key that long is not valid)";
  }
  if (what.rfind("Field name too long", 0) == 0) return "a request header name is longer than 256 bytes";
  if (what.rfind("Too many header fields", 0) == 0) return "the request has more than 100 header fields";
  return "the request is not valid HTTP/1.1 (its request line or headers could not be parsed)";
}

}  // namespace

// One client connection: reads requests one after another (keep-alive) and
// hands each to the router, as POCO's HTTPServerConnection does.
class Connection : public Poco::Net::TCPServerConnection {
 public:
  Connection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params, Router& router,
             std::shared_ptr<Server::Connections> connections)
      : TCPServerConnection(socket),
        params_(std::move(params)),
        router_(router),
        connections_(std::move(connections)) {}

  void run() override {
    {
      std::lock_guard lock(connections_->mutex);
      if (connections_->stopping) return;
      connections_->live.insert(this);
    }
    try {
      serve();
    } catch (const Poco::Exception& e) {
      spdlog::debug("connection closed: {}", e.displayText());
    } catch (const std::exception& e) {
      spdlog::debug("connection closed: {}", e.what());
    }
    std::lock_guard lock(connections_->mutex);
    connections_->live.erase(this);
  }

  // Called by stop_all with the registry locked.
  void stop(bool abort_current) {
    if (abort_current || !busy_.load()) {
      try {
        socket().shutdown();
      } catch (...) {  // already closed by the client: nothing to stop
      }
    }
  }

 private:
  bool stopping() {
    std::lock_guard lock(connections_->mutex);
    return connections_->stopping;
  }

  void serve() {
    const std::string server_name = params_->getSoftwareVersion();
    Poco::Net::HTTPServerSession session(socket(), params_);
    while (!stopping() && session.hasMoreRequests()) {
      try {
        Poco::Net::HTTPServerResponseImpl response(session);
        Poco::Net::HTTPServerRequestImpl request(response, session, params_.get());
        if (request.getVersion() != Poco::Net::HTTPMessage::HTTP_1_1 &&
            request.getVersion() != Poco::Net::HTTPMessage::HTTP_1_0) {
          // POCO reads any third word as the version, and would echo it back.
          answer_malformed(session, "the request line is not 'METHOD /path HTTP/1.1'");
          break;
        }
        busy_ = true;
        response.setDate(Poco::Timestamp());
        response.setVersion(request.getVersion());
        response.setKeepAlive(params_->getKeepAlive() && request.getKeepAlive() && session.canKeepAlive());
        if (!server_name.empty()) response.set("Server", server_name);
        if (request.getExpectContinue() && response.getStatus() == Poco::Net::HTTPResponse::HTTP_OK) {
          response.sendContinue();
        }
        router_.dispatch(request, response);
        session.setKeepAlive(params_->getKeepAlive() && response.getKeepAlive() && session.canKeepAlive());
        busy_ = false;
      } catch (const Poco::Net::NoMessageException&) {
        break;  // the client closed, or the keep-alive wait ended
      } catch (const Poco::Net::MessageException& e) {
        answer_malformed(session, malformed_message(e));
        break;
      }
    }
  }

  void answer_malformed(Poco::Net::HTTPServerSession& session, const std::string& message) {
    const std::string request_id = new_request_id();
    spdlog::info("{} malformed request refused: {}", request_id, message);
    const std::string body = error_envelope(bad_request("invalid_parameter", message), request_id);
    try {
      Poco::Net::HTTPServerResponseImpl response(session);
      response.setVersion(Poco::Net::HTTPMessage::HTTP_1_1);
      response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_BAD_REQUEST);
      response.setKeepAlive(false);  // where the next request would start is unknown
      response.setContentType("application/json");
      response.set("X-Request-Id", request_id);
      response.setContentLength(static_cast<std::streamsize>(body.size()));
      response.send() << body << std::flush;
      linger_and_drain();
    } catch (const Poco::Exception&) {  // the client is gone
    }
  }

  // The rest of the refused request is still unread. Closing now would make
  // the kernel reset the connection, and a reset can destroy the answer in
  // the client's receive buffer before it is read. So: end our side, read
  // and discard what the client still sends (bounded), then close.
  void linger_and_drain() {
    socket().shutdownSend();
    socket().setReceiveTimeout(Poco::Timespan(0, 200 * 1000));
    char scrap[8192];
    std::size_t total = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (total < (1u << 20) && std::chrono::steady_clock::now() < until) {
      int n = 0;
      try {
        n = socket().receiveBytes(scrap, sizeof scrap);
      } catch (const Poco::TimeoutException&) {
        break;  // the client sent nothing more for a while
      }
      if (n <= 0) break;  // the client closed too
      total += static_cast<std::size_t>(n);
    }
  }

  Poco::Net::HTTPServerParams::Ptr params_;
  Router& router_;
  std::shared_ptr<Server::Connections> connections_;
  std::atomic<bool> busy_{false};
};

namespace {

class ConnectionFactory : public Poco::Net::TCPServerConnectionFactory {
 public:
  ConnectionFactory(Poco::Net::HTTPServerParams::Ptr params, Router& router,
                    std::shared_ptr<Server::Connections> connections)
      : params_(std::move(params)), router_(router), connections_(std::move(connections)) {}

  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new Connection(socket, params_, router_, connections_);
  }

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  Router& router_;
  std::shared_ptr<Server::Connections> connections_;
};

}  // namespace

Server::Server(Router& router, Poco::ThreadPool& threads, const Poco::Net::ServerSocket& socket,
               Poco::Net::HTTPServerParams::Ptr params)
    : connections_(std::make_shared<Connections>()) {
  tcp_ = std::make_unique<Poco::Net::TCPServer>(new ConnectionFactory(params, router, connections_), threads,
                                                socket, params);
}

Server::~Server() {
  stop_all(true);
}

void Server::start() {
  tcp_->start();
}

void Server::stop_all(bool abort_current) {
  tcp_->stop();  // no new connections; queued ones are dropped
  std::lock_guard lock(connections_->mutex);
  connections_->stopping = true;
  for (Connection* c : connections_->live) c->stop(abort_current);
}

std::uint16_t Server::port() const {
  return tcp_->port();
}

}  // namespace modelgw::http
