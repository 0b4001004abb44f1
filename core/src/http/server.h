// The gateway's HTTP/1.1 server: POCO's TCPServer (accept loop, worker
// threads) with a connection loop of our own in place of POCO's
// HTTPServerConnection, for two reasons:
//   - a request whose head POCO cannot parse (a header value over 8192 bytes,
//     a malformed request line) still gets the spec's error envelope with a
//     request_id, where POCO would send an empty 400;
//   - shutdown never blocks on a busy connection: idle keep-alive connections
//     are closed at once, busy ones after their current request (or at once
//     when the grace period is over).
#pragma once

#include "http/router.h"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <memory>

namespace modelgw::http {

class Server {
 public:
  Server(Router& router, Poco::ThreadPool& threads, const Poco::Net::ServerSocket& socket,
         Poco::Net::HTTPServerParams::Ptr params);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();
  // Stops accepting. Idle keep-alive connections close now; a connection in
  // the middle of a request closes after it, or now when `abort_current`.
  // Never waits for a request to finish.
  void stop_all(bool abort_current);
  std::uint16_t port() const;

  struct Connections;  // the live connections, for stop_all

 private:
  std::shared_ptr<Connections> connections_;
  std::unique_ptr<Poco::Net::TCPServer> tcp_;
};

}  // namespace modelgw::http
