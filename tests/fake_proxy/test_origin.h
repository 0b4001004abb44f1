// Origin servers for the fake_proxy tests, on 127.0.0.1:0.
//  * TestOrigin: a POCO HTTPServer with /echo (method, URI, headers and body
//    back as JSON) and /stream (a chunked SSE stream that pauses after its
//    first event until the test says go, to prove the proxy does not buffer).
//  * CannedOrigin: a raw TCP server that answers each request with fixed
//    bytes and keeps what it received, for byte-exact checks.
#pragma once

#include <Poco/Net/HTTPServer.h>
#include <Poco/ThreadPool.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fake_proxy::test {

class TestOrigin {
 public:
  TestOrigin();
  ~TestOrigin();
  TestOrigin(const TestOrigin&) = delete;
  TestOrigin& operator=(const TestOrigin&) = delete;

  int port() const { return port_; }
  // TCP connections the origin accepted so far.
  int connections() const;
  // Lets a /stream response go on past its first event.
  void releaseStream();

  // Shared with the request handlers.
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    bool released = false;
    bool stopping = false;
  };

 private:
  std::shared_ptr<State> state_;
  Poco::ThreadPool pool_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  int port_ = 0;
};

class CannedOrigin {
 public:
  // Answers every request (head + Content-Length body) with `response`, then
  // closes the connection if `closeAfter`.
  explicit CannedOrigin(std::string response, bool closeAfter = false);
  ~CannedOrigin();
  CannedOrigin(const CannedOrigin&) = delete;
  CannedOrigin& operator=(const CannedOrigin&) = delete;

  int port() const { return port_; }
  // Raw requests received so far.
  std::vector<std::string> requests() const;

 private:
  void run();
  void serve(int fd);

  std::string response_;
  bool closeAfter_;
  int listenFd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

}  // namespace fake_proxy::test
