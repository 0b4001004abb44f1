#include "fake_proxy/proxy_process.h"

#include <Poco/Exception.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

namespace fake_proxy {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// One request on a fresh connection to the proxy itself; returns the whole
// response (the proxy closes after "Connection: close"). Bounded in time and size.
std::string exchange(int port, const std::string& request) {
  std::string response;
  try {
    Poco::Net::StreamSocket socket;
    socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)),
                   Poco::Timespan(5, 0));
    socket.setReceiveTimeout(Poco::Timespan(5, 0));
    socket.sendBytes(request.data(), static_cast<int>(request.size()));
    char buffer[16384];
    const auto deadline = Clock::now() + 10s;
    while (Clock::now() < deadline && response.size() < (16u << 20)) {
      const int n = socket.receiveBytes(buffer, sizeof buffer);
      if (n <= 0) break;
      response.append(buffer, static_cast<size_t>(n));
    }
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("fake_proxy log request failed: " + e.displayText());
  }
  return response;
}

std::string body_of(const std::string& response, const char* expected_status) {
  if (response.rfind(std::string("HTTP/1.1 ") + expected_status, 0) != 0) {
    throw std::runtime_error("fake_proxy log request failed: " + response.substr(0, 200));
  }
  const auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : response.substr(end + 4);
}

}  // namespace

std::string fake_proxy_binary() {
  return FAKE_PROXY_BIN;
}

FakeProxyProcess::FakeProxyProcess(const std::vector<std::string>& args, const std::string& binary) {
  // stderr is inherited so the proxy's complaints show up in the test output.
  handle_ =
      std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(binary, args, nullptr, &out_, nullptr));
  port_ = read_listening_port();
}

FakeProxyProcess::~FakeProxyProcess() {
  stop();
}

int FakeProxyProcess::stop() {
  if (!handle_) return exit_code_;
  ::kill(handle_->id(), SIGTERM);
  const auto deadline = Clock::now() + 5s;
  while (Clock::now() < deadline) {
    const int code = handle_->tryWait();
    if (code != -1) {
      exit_code_ = code;
      handle_.reset();
      return code;
    }
    std::this_thread::sleep_for(10ms);
  }
  try {
    Poco::Process::kill(*handle_);
    handle_->wait();
  } catch (const Poco::Exception&) {
  }
  handle_.reset();
  exit_code_ = -1;
  return exit_code_;
}

// Reads "LISTENING <port>\n" from the child's stdout, for at most 10 s.
int FakeProxyProcess::read_listening_port() {
  const int fd = out_.readHandle();
  std::string line;
  const auto deadline = Clock::now() + 10s;
  bool closed = false;
  while (Clock::now() < deadline && line.size() < 200 && !closed) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char c = 0;
    if (::read(fd, &c, 1) != 1) {
      closed = true;  // the child exited (bad arguments, unreadable certificate)
    } else if (c == '\n') {
      break;
    } else {
      line.push_back(c);
    }
  }
  const std::string prefix = "LISTENING ";
  if (line.rfind(prefix, 0) != 0) {
    stop();
    throw std::runtime_error("fake_proxy did not report its port, got: '" + line + "'");
  }
  return std::stoi(line.substr(prefix.size()));
}

std::vector<ProxyLogEntry> FakeProxyProcess::log() const {
  const auto body = body_of(
      exchange(port_, "GET /_proxy/log HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"), "200");
  std::vector<ProxyLogEntry> out;
  try {
    for (const auto& item : nlohmann::json::parse(body)) {
      ProxyLogEntry e;
      e.method = item.at("method").get<std::string>();
      e.target = item.at("target").get<std::string>();
      if (!item.at("auth").is_null()) e.auth = item.at("auth").get<std::string>();
      e.status = item.at("status").get<int>();
      out.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("fake_proxy log is not the expected JSON: ") + e.what());
  }
  return out;
}

void FakeProxyProcess::clear_log() const {
  body_of(exchange(port_, "DELETE /_proxy/log HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
          "204");
}

}  // namespace fake_proxy
