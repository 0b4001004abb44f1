#include "test_origin.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/StreamCopier.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fake_proxy::test {
namespace {

using namespace std::chrono_literals;

class EchoHandler : public Poco::Net::HTTPRequestHandler {
 public:
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    std::string body;
    Poco::StreamCopier::copyToString(request.stream(), body);
    nlohmann::json headers = nlohmann::json::object();
    for (const auto& [name, value] : request) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      headers[lower] = value;
    }
    const nlohmann::json out = {
        {"method", request.getMethod()}, {"uri", request.getURI()}, {"body", body}, {"headers", headers}};
    const std::string text = out.dump();
    response.set("X-Origin", "test-origin");
    response.setContentType("application/json");
    response.setContentLength(static_cast<std::streamsize>(text.size()));
    response.send() << text;
  }
};

// An SSE stream: one event, a pause until the test releases it (at most 5 s),
// then two more events.
class StreamHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit StreamHandler(std::shared_ptr<TestOrigin::State> state) : state_(std::move(state)) {}

  void handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) override {
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream");
    auto& out = response.send();
    out << "data: one\n\n" << std::flush;
    {
      std::unique_lock lock(state_->mutex);
      state_->changed.wait_for(lock, 5s, [&] { return state_->released || state_->stopping; });
      state_->released = false;
    }
    out << "data: two\n\n" << std::flush;
    out << "data: [DONE]\n\n" << std::flush;
  }

 private:
  std::shared_ptr<TestOrigin::State> state_;
};

class NotFoundHandler : public Poco::Net::HTTPRequestHandler {
 public:
  void handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) override {
    response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_NOT_FOUND);
    response.setContentLength(0);
    response.send();
  }
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(std::shared_ptr<TestOrigin::State> state) : state_(std::move(state)) {}

  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override {
    const auto path = request.getURI().substr(0, request.getURI().find('?'));
    if (path == "/echo") return new EchoHandler;
    if (path == "/stream") return new StreamHandler(state_);
    return new NotFoundHandler;
  }

 private:
  std::shared_ptr<TestOrigin::State> state_;
};

}  // namespace

TestOrigin::TestOrigin() : state_(std::make_shared<State>()), pool_(2, 16) {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(16);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(10, 0));
  // Wakes the dispatcher threads quickly on stop.
  params->setThreadIdleTime(Poco::Timespan(0, 200'000));
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(state_), pool_, socket, params);
  server_->start();
  port_ = socket.address().port();
}

TestOrigin::~TestOrigin() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  server_->stopAll(/*abortCurrent=*/true);
  pool_.joinAll();
}

int TestOrigin::connections() const {
  return server_->totalConnections();
}

void TestOrigin::releaseStream() {
  {
    std::lock_guard lock(state_->mutex);
    state_->released = true;
  }
  state_->changed.notify_all();
}

CannedOrigin::CannedOrigin(std::string response, bool closeAfter)
    : response_(std::move(response)), closeAfter_(closeAfter) {
  listenFd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listenFd_ < 0 || ::bind(listenFd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listenFd_, 16) != 0 ||
      ::getsockname(listenFd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (listenFd_ >= 0) ::close(listenFd_);
    throw std::runtime_error("CannedOrigin: cannot listen");
  }
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { run(); });
}

CannedOrigin::~CannedOrigin() {
  stop_.store(true);
  thread_.join();
  ::close(listenFd_);
}

std::vector<std::string> CannedOrigin::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

// One connection at a time is enough for these tests; every wait is a
// 100 ms poll that checks the stop flag.
void CannedOrigin::run() {
  while (!stop_.load()) {
    pollfd pfd{listenFd_, POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    const int fd = ::accept(listenFd_, nullptr, nullptr);
    if (fd < 0) continue;
    serve(fd);
    ::close(fd);
  }
}

void CannedOrigin::serve(int fd) {
  std::string buffer;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!stop_.load() && std::chrono::steady_clock::now() < deadline) {
    const auto headEnd = buffer.find("\r\n\r\n");
    if (headEnd != std::string::npos) {
      size_t length = 0;
      std::string head = buffer.substr(0, headEnd);
      std::transform(head.begin(), head.end(), head.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (const auto cl = head.find("\r\ncontent-length:"); cl != std::string::npos) {
        length = std::stoul(head.substr(cl + 17));
      }
      if (buffer.size() >= headEnd + 4 + length) {
        {
          std::lock_guard lock(mutex_);
          requests_.push_back(buffer.substr(0, headEnd + 4 + length));
        }
        buffer.erase(0, headEnd + 4 + length);
        if (::send(fd, response_.data(), response_.size(), MSG_NOSIGNAL) < 0 || closeAfter_) return;
        continue;
      }
    }
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char chunk[4096];
    const auto n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return;
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace fake_proxy::test
